import type { ChatModel } from './chat.js'

/** A ChatModel whose client (and its SDK) is made on the first call, then reused. */
export function lazyChatModel(provider: ChatModel['provider'], load: () => Promise<ChatModel>): ChatModel {
  let model: Promise<ChatModel> | undefined
  return {
    provider,
    async complete(request, signal) {
      model ??= load()
      return (await model).complete(request, signal)
    },
  }
}

import type { JsMsg } from '@nats-io/jetstream'

const LINGERED = Symbol('lingered')

/**
 * Groups a consumer's messages into batches: a batch ends when it holds `max` messages, or
 * when the stream has nothing more pending and `lingerMs` have passed since its first
 * message. Lingering a little lets a task's created, started and completed events, which
 * follow each other within milliseconds, fold into one write instead of three.
 */
export async function* batchesOf(messages: AsyncIterable<JsMsg>, max: number, lingerMs: number): AsyncGenerator<JsMsg[]> {
  const iterator = messages[Symbol.asyncIterator]()
  let next: Promise<IteratorResult<JsMsg>> | null = null
  let batch: JsMsg[] = []
  let deadline: Promise<typeof LINGERED> | null = null
  let timer: NodeJS.Timeout | undefined
  let caughtUp = false
  try {
    for (;;) {
      next ??= iterator.next()
      const result: IteratorResult<JsMsg> | typeof LINGERED = caughtUp && deadline ? await Promise.race([next, deadline]) : await next
      if (result === LINGERED) {
        yield batch
        batch = []
        deadline = null
        caughtUp = false
        continue
      }
      next = null
      if (result.done) {
        if (batch.length > 0) yield batch
        return
      }
      if (batch.length === 0 && lingerMs > 0) {
        deadline = new Promise((resolve) => {
          timer = setTimeout(() => resolve(LINGERED), lingerMs)
        })
      }
      batch.push(result.value)
      caughtUp = result.value.info.pending === 0
      if (batch.length >= max || (caughtUp && lingerMs === 0)) {
        clearTimeout(timer)
        yield batch
        batch = []
        deadline = null
        caughtUp = false
      }
    }
  } finally {
    clearTimeout(timer)
    // The source's own iterator must end too: a nats.js consumer's close() waits for it.
    await iterator.return?.()
  }
}

import type { DirectBatchStartSeq, JetStreamManager, StoredMsg } from '@nats-io/jetstream'

/**
 * A batch of stored messages by direct get, as an array. Read as an iterator, nats.js 3.4's
 * `direct.getBatch` does not unsubscribe the reply inbox of a batch that ended (only its callback
 * form does, once the batch is over): the subscription stayed, in the client and on the server,
 * until its 5 s timeout removed it. Every read held one, with its timer, for 5 s: at 4,000 waiting
 * clients opening, thousands of them. Read through the callback, whose end unsubscribes.
 */
export function directBatch(jsm: JetStreamManager, stream: string, opts: Omit<DirectBatchStartSeq, 'callback'>): Promise<StoredMsg[]> {
  return new Promise((resolve, reject) => {
    const messages: StoredMsg[] = []
    const callback = (done: { err?: Error } | null, msg: StoredMsg): void => {
      if (done === null) messages.push(msg)
      else if (done.err) reject(done.err)
      else resolve(messages)
    }
    jsm.direct.getBatch(stream, { ...opts, callback }).catch(reject)
  })
}

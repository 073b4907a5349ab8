import type { DirectBatchStartSeq, JetStreamManager, StoredMsg } from '@nats-io/jetstream'
import { DirectMsgImpl, JetStreamStatus } from '@nats-io/jetstream/internal'
import { createInbox, type Msg, type NatsConnection } from '@nats-io/transport-node'

/** How long a batch may go without a message before it fails (nats.js' own `direct.getBatch` waits as long). */
const SILENT_MS = 5000

/** What a direct batch read needs: the connection it is sent on, and the JetStream API it asks. */
export interface DirectReads {
  readonly nc: NatsConnection
  readonly jsm: JetStreamManager
}

/** The status the server ends a batch with: 204 after its last message, 404 when it found none (left). */
const END_OF_BATCH = 204
const NO_RESULTS = 404

/**
 * A batch of stored messages by direct get (`$JS.API.DIRECT.GET.<stream>`), as an array.
 * The reply inbox is subscribed for at most `batch` messages: when the server has that many,
 * it drops the end-of-batch status it sends after them, one message a read fewer for the
 * client and the server (a task's account and session reads: two per task, issue 22);
 * when it has fewer, the status arrives within the `batch` and ends the read. Either way
 * the subscription is gone when the read ends, on the client and on the server (nats.js 3.4's
 * `direct.getBatch` read as an iterator left it for 5 s).
 */
export function directBatch(reads: DirectReads, stream: string, opts: Omit<DirectBatchStartSeq, 'callback'> & { readonly batch: number }): Promise<StoredMsg[]> {
  const { nc, jsm } = reads
  return new Promise((resolve, reject) => {
    const messages: StoredMsg[] = []
    // mats connects with nats.js' default inbox prefix (_INBOX), as its other requests use.
    const inbox = createInbox()
    const sub = nc.subscribe(inbox, {
      max: opts.batch,
      timeout: SILENT_MS,
      callback: (err: Error | null, msg: Msg) => {
        if (err) return reject(err)
        const status = JetStreamStatus.maybeParseStatus(msg)
        if (status) {
          sub.unsubscribe()
          if (status.code === END_OF_BATCH || status.code === NO_RESULTS) return resolve(messages)
          return reject(status.toError())
        }
        messages.push(new DirectMsgImpl(msg))
        if (messages.length === opts.batch) resolve(messages)
      },
    })
    const prefix = jsm.getOptions().apiPrefix ?? '$JS.API'
    nc.publish(`${prefix}.DIRECT.GET.${stream}`, JSON.stringify(opts), { reply: inbox })
  })
}

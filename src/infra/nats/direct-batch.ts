import type { DirectBatchStartSeq, JetStreamManager, StoredMsg } from '@nats-io/jetstream'
import { DirectMsgImpl, JetStreamStatus } from '@nats-io/jetstream/internal'
import { createInbox, type Msg, type NatsConnection } from '@nats-io/transport-node'

/** How long a whole batch read may take before it fails (nats.js' own `direct.getBatch` gives it as long). */
const READ_DEADLINE_MS = 5000

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
  if (!Number.isInteger(opts.batch) || opts.batch < 1) throw new RangeError(`a direct batch asks for at least one message (batch ${opts.batch})`)
  return new Promise((resolve, reject) => {
    const messages: StoredMsg[] = []
    // mats connects with nats.js' default inbox prefix (_INBOX), as its other requests use.
    const inbox = createInbox()
    const sub = nc.subscribe(inbox, {
      max: opts.batch,
      // A callback subscription's timeout is a deadline for the whole read, not for each message.
      timeout: READ_DEADLINE_MS,
      callback: (err: Error | null, msg: Msg) => {
        if (err) {
          sub.unsubscribe()
          return reject(err)
        }
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
    // Closed any other way (the connection closing or draining), the read fails rather than waits; after an answer this does nothing.
    void sub.closed.then(() => reject(new Error(`the direct batch read of ${stream} ended without an answer: its subscription closed`)))
    const prefix = jsm.getOptions().apiPrefix ?? '$JS.API'
    nc.publish(`${prefix}.DIRECT.GET.${stream}`, JSON.stringify(opts), { reply: inbox })
  })
}

import { randomUUID } from 'node:crypto'
import { JetStreamApiError, type ApiError } from '@nats-io/jetstream'
import type { Msg, MsgHdrs, NatsConnection } from '@nats-io/transport-node'
import { settleWithin } from '../deadline.js'
import { AppendInDoubtError, LATE_ACK_MS, type AppendSettlement } from './event-store-errors.js'

export interface BatchMessage {
  readonly subject: string
  readonly payload: string
  /** The message's own headers (`Nats-Msg-Id`, the guard on the first): the batch headers are added here. */
  readonly headers: MsgHdrs
}

export interface BatchAck {
  /** Stream sequence of the batch's last message: the batch is stored contiguously, ending here. */
  readonly seq: number
  readonly count: number
}

/** nats-server refuses atomic batches larger than this (ADR-50). */
export const MAX_BATCH_MESSAGES = 1000

/**
 * nats-server's default number of atomic batches open at once on one stream, all clients
 * together (`jetstream { limits { batch { max_inflight_per_stream } } }`): the first message of
 * the next batch is refused (REFUSED_WHOLE). Pinned by test/integration/atomic-batch.test.ts.
 */
export const SERVER_BATCHES_PER_STREAM = 50

/**
 * The answers by which nats-server refuses a batch before applying any of it, so that nothing of
 * it is stored and the same messages may be sent again as a new batch:
 * - 10176 "atomic publish batch is incomplete": on nats-server 2.12, too many batches open
 *   on the stream (or on the server); on every version, a message of the batch missing, or the
 *   batch abandoned after 10 s (2.12.15 stream.go: every such answer comes before the commit is
 *   applied or proposed);
 * - 10210 "atomic publish too many inflight": on 2.14+, too many batches open, said apart (2.15.2
 *   stream.go: at the batch's first message, before it is opened).
 */
const REFUSED_WHOLE: ReadonlySet<number> = new Set([10176, 10210])

/** Whether the server refused the batch whole (REFUSED_WHOLE): nothing of it is stored. */
export function isBatchRefusedWhole(err: unknown): boolean {
  return err instanceof JetStreamApiError && REFUSED_WHOLE.has(err.code)
}

/**
 * JetStream atomic batch publish (nats-server 2.12+, stream `allow_atomic`, ADR 0026): the
 * messages are stored all or none. The first message is a request (the server answers it
 * empty, or with the error that ends the batch: atomic publish disabled, too many batches in
 * flight), the middle ones are plain publishes, the last carries `Nats-Batch-Commit` and gets
 * the PubAck. Expected-sequence headers anywhere in the batch are checked at the commit, under
 * the stream's lock, against the stream as it was before the batch. A batch whose commit never
 * arrives (a cut connection) is abandoned by the server after 10 s of silence: nothing of it is
 * stored. Errors are thrown as JetStreamApiError, with the server's code. `timeoutMs` bounds the
 * whole batch: the commit gets what the first request left of it, and a commit unanswered by
 * then is AppendInDoubtError (it may yet be stored). Each call is a new batch.
 */
export async function publishAtomically(nc: NatsConnection, messages: readonly BatchMessage[], timeoutMs: number): Promise<BatchAck> {
  if (messages.length === 0 || messages.length > MAX_BATCH_MESSAGES) throw new RangeError(`an atomic batch holds 1 to ${MAX_BATCH_MESSAGES} messages, not ${messages.length}`)
  const deadline = Date.now() + timeoutMs
  const batchId = randomUUID()
  const last = messages.length - 1
  for (const [index, message] of messages.entries()) {
    const headers = message.headers
    headers.set('Nats-Batch-Id', batchId)
    headers.set('Nats-Batch-Sequence', String(index + 1))
    if (index === last) {
      headers.set('Nats-Batch-Commit', '1')
      return commit(nc, message, messages.length, deadline)
    }
    if (index === 0) {
      const reply = parseReply(await nc.request(message.subject, message.payload, { headers, timeout: Math.max(1, deadline - Date.now()) }))
      // A server without atomic batches (before 2.12) stores and acknowledges each message.
      if (reply.seq !== undefined) throw new Error(`the server stored the first message of an atomic batch alone (seq ${reply.seq}): it does not do atomic batches`)
    } else {
      nc.publish(message.subject, message.payload, { headers })
    }
  }
  throw new Error('unreachable: the last message commits the batch')
}

/**
 * The commit, answered by `deadline`; its acknowledgement is still awaited for LATE_ACK_MS
 * after that, since the server may store the batch after the caller was answered (ADR 0046):
 * then AppendInDoubtError, whose `settled` is what the late answer says. Until the commit is
 * sent, a batch given up is never stored (the server abandons it), so only the commit is in doubt.
 */
async function commit(nc: NatsConnection, message: BatchMessage, count: number, deadline: number): Promise<BatchAck> {
  const acked = nc.request(message.subject, message.payload, { headers: message.headers, timeout: LATE_ACK_MS }).then((reply) => checkedAck(parseReply(reply), count))
  const inTime = await settleWithin(acked, Math.max(1, deadline - Date.now()))
  if (inTime.outcome === 'late') {
    const settlement = settlementOf(acked)
    throw new AppendInDoubtError(`no answer to the commit of an atomic batch of ${count} on ${message.subject} in time`, () => settlement)
  }
  return acked
}

/** A late PubAck stored the batch; an error the server answered refused it whole (all or none); anything else is not known. */
function settlementOf(acked: Promise<BatchAck>): Promise<AppendSettlement> {
  return acked.then(
    (): AppendSettlement => 'stored',
    (err: unknown): AppendSettlement => (err instanceof JetStreamApiError ? 'not-stored' : 'unknown'),
  )
}

interface Reply {
  readonly error?: ApiError
  readonly seq?: number
  readonly count?: number
}

/** An empty reply acknowledges a message inside the batch; a JSON one is an error or the commit's PubAck. */
function parseReply(msg: Msg): Reply {
  if (msg.data.length === 0) return {}
  const reply: unknown = msg.json()
  if (typeof reply !== 'object' || reply === null) throw new Error(`unexpected reply to an atomic batch: ${msg.string()}`)
  if ('error' in reply && isApiError(reply.error)) throw new JetStreamApiError(reply.error)
  return {
    ...('seq' in reply && typeof reply.seq === 'number' ? { seq: reply.seq } : {}),
    ...('count' in reply && typeof reply.count === 'number' ? { count: reply.count } : {}),
  }
}

function checkedAck(reply: Reply, sent: number): BatchAck {
  if (reply.seq === undefined || reply.count !== sent) throw new Error(`the atomic batch of ${sent} was acknowledged as ${JSON.stringify(reply)}`)
  return { seq: reply.seq, count: reply.count }
}

function isApiError(value: unknown): value is ApiError {
  if (typeof value !== 'object' || value === null) return false
  return 'err_code' in value && typeof value.err_code === 'number' && 'code' in value && typeof value.code === 'number' && 'description' in value && typeof value.description === 'string'
}

import type { Consumer, ConsumerMessages } from '@nats-io/jetstream'
import { randomUUID } from 'node:crypto'
import type { NatsLink } from './link.js'

/** A name prefix for an ordered consumer: the owner's `prefix`, so an operator can tell whose it is, and a unique rest. */
export function orderedConsumerPrefix(prefix: string): string {
  return `${prefix}${randomUUID().replaceAll('-', '')}`
}

/**
 * Ends an ordered consumer for good. In nats.js 3.4 `close()` only stops reading: the server
 * keeps the consumer for its inactive threshold (5 minutes), so every wait, restart or view
 * would leave one behind. `delete()` removes the one the consumer currently reads from (an
 * ordered consumer deletes its predecessors itself when it recreates one). A delete that
 * fails (NATS away) is left to that threshold.
 *
 * `close()` is not awaited: its promise settles only once something reads the iterator to its
 * end, which never happens to one closed before it was read (a runner stopped while starting).
 * It unsubscribes at once all the same.
 */
export async function closeOrdered(consumer: Consumer, messages: ConsumerMessages | undefined): Promise<void> {
  void messages?.close().catch(() => undefined)
  await consumer.delete().catch(() => false)
}

/**
 * How a consumer that follows a stream for long pulls. With nats.js's defaults (a pull lasts
 * 30 s, the server sends a heartbeat after 15 s of silence), a consumer whose server was killed
 * is noticed only after two heartbeats missed, 15 to 30 s later, and nats.js's own recovery then
 * asks for the consumer's info and, when that times out (the cluster still electing), waits a
 * whole pull before asking again (nats.js 3.4, `resetPendingWithInfo`): schedulers and the spend
 * view stood still for 30 to 40 s after a node was killed. Here the silence is noticed after 4 to
 * 6 s, and the messages end with ConsumerSilentError, so that their reader opens a new consumer
 * after the last message it read. The cost: an idle consumer's heartbeat every 2 s, a pull every 10 s.
 */
export const FOLLOW_PULL_MS = 10_000
export const FOLLOW_HEARTBEAT_MS = 2_000

/** The server of a followed consumer stopped answering: open a new consumer from the next sequence. */
export class ConsumerSilentError extends Error {
  override readonly name = 'ConsumerSilentError'
}

/**
 * `consumer.consume()` for a consumer read for long: ends with ConsumerSilentError once its
 * heartbeats stop, and at a reconnection, after which nats.js watches no heartbeat until the
 * consumer's info answers (never, while the server that held it is down).
 */
export async function consumeFollowing(consumer: Consumer, maxMessages: number, link: Pick<NatsLink, 'onReconnect'>): Promise<ConsumerMessages> {
  const messages = await consumer.consume({ max_messages: maxMessages, expires: FOLLOW_PULL_MS, idle_heartbeat: FOLLOW_HEARTBEAT_MS })
  const silent = (why: string) => messages.stop(new ConsumerSilentError(why))
  const forget = link.onReconnect(() => silent('reconnected to NATS: the server that held the consumer may be gone'))
  void endWhenSilent(messages, silent).finally(forget)
  return messages
}

/** Ends once the messages have been read to their end (nats.js then stops the status listeners). */
async function endWhenSilent(messages: ConsumerMessages, silent: (why: string) => void): Promise<void> {
  for await (const status of messages.status()) {
    if (status.type === 'heartbeats_missed') return silent(`${status.count} heartbeats of ${FOLLOW_HEARTBEAT_MS} ms missed: the consumer's server is gone`)
  }
}

/** A consumer's end is logged as a warning when its server went away (an outage ridden out), as an error otherwise. */
export function endLevel(err: unknown): 'warn' | 'error' {
  return err instanceof ConsumerSilentError ? 'warn' : 'error'
}

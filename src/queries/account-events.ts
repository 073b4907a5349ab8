import type { RecordedEvent } from '../domain/message.js'
import type { Infra } from '../infra/context.js'
import { LogReader } from '../infra/nats/log-reader.js'
import { ACCOUNT_FEED_CATEGORIES } from '../domain/events/account-feed.js'
import { eventSubjectParts, SUBJECT_ROOT, streamOf } from '../infra/nats/subjects.js'
import type { LiveEventHub } from './live-event-hub.js'

/** Events read from the log a page at a time while catching up from a Last-Event-ID. */
const HISTORY_PAGE = 256

export interface AccountEventFeed {
  /** The account's task and schedule events after the resume point, in stream order, then live ones, until `signal` aborts or the feed is interrupted (it throws then). */
  events(signal: AbortSignal): AsyncGenerator<RecordedEvent>
  /** Gives the feed's place in the hub back; call once the stream ends. */
  close(): void
}

/**
 * Every task and schedule event of one account (GET /v1/events), after `lastEventId` or, without one,
 * from now on. Live events come from the process's shared consumer (LiveEventHub); what
 * the client missed comes from the log by direct gets, a page at a time. The seam: the feed
 * joins the hub first, then asks the stream leader for the account's last sequence L; every
 * account event up to L is in the log, every later one reaches the inbox, and an event that
 * comes both ways is written once, since only sequences above the last one written pass.
 */
export async function openAccountEvents(infra: Infra, hub: LiveEventHub, accountId: string, lastEventId: number | undefined): Promise<AccountEventFeed> {
  infra.link.assertUp()
  const { inbox, release } = await hub.subscribe(accountId)
  try {
    const reader = new LogReader(infra)
    const stream = streamOf('task')
    // Every category of the account in the tasks' stream (one filter), the feed's categories kept: ADR 0048.
    const filter = `${SUBJECT_ROOT}.*.${accountId}.>`
    const accountLast = await reader.lastFromLeader(stream, filter)
    const after = lastEventId ?? accountLast
    return {
      close: release,
      async *events(signal) {
        let written = after
        for await (const event of history(reader, stream, filter, after, accountLast)) {
          if (signal.aborted) return
          if (!inFeed(event)) continue
          yield event
          written = event.seq
        }
        for await (const event of inbox.events(signal)) {
          if (event.seq <= written) continue
          yield event
          written = event.seq
        }
      },
    }
  } catch (err) {
    release()
    throw err
  }
}

/** Whether the account feed carries the event: a task's or a schedule's, not an action's decision or a re-run record. */
function inFeed(event: RecordedEvent): boolean {
  return (ACCOUNT_FEED_CATEGORIES as readonly string[]).includes(eventSubjectParts(event.subject).category)
}

/** The events on `filter` in (after, until], a page at a time. */
async function* history(reader: LogReader, stream: string, filter: string, after: number, until: number): AsyncGenerator<RecordedEvent> {
  for (let from = after + 1; from <= until; ) {
    const page = await reader.readPage(stream, filter, from, HISTORY_PAGE)
    if (page.lastSeq === 0) {
      // A replica that has not stored them yet (a cluster): the leader-checked read of the rest.
      yield* (await reader.read(stream, filter, from, until)).events
      return
    }
    yield* page.events
    from = page.lastSeq + 1
  }
}

import type { RecordedEvent } from '../domain/message.js'
import { endsTask } from '../domain/tasks/task.js'
import type { Infra } from '../infra/context.js'
import { LogReader } from '../infra/nats/log-reader.js'
import { aggregateSubjects, streamOf } from '../infra/nats/subjects.js'
import type { LiveEventHub } from './live-event-hub.js'

/** What following a task live needs: the log, the link, and the process's shared live events. */
export type LiveContext = Pick<Infra, 'nc' | 'jsm' | 'link'> & { readonly liveEvents: LiveEventHub }

/** One task followed: its stored history, then its live events; holds a place in the hub (nothing on the server) until released. */
export interface TaskFollow {
  /** The task's stored events when the follow began, in stream order (none: the account has no such task, yet). */
  readonly history: readonly RecordedEvent[]
  /** The task's events after the history and after `afterSeq`, in stream order, until its terminal event or `signal` aborts; throws when the hub is interrupted. */
  live(afterSeq: number, signal: AbortSignal): AsyncGenerator<RecordedEvent>
  /** Gives the place in the hub back; idempotent. */
  release(): void
}

/**
 * Follows one task without a consumer of its own (ADR 0040). The seam between the log and
 * the live events: the follow joins the hub first, then asks the stream leader for the task's
 * last sequence L and reads the history up to L (direct gets, re-read from the leader when a
 * replica lags). Every event up to L is in that history; every later one was stored after the
 * follow joined, so the hub hands it to its inbox; an event that comes both ways (stored while
 * the history was read) passes once, since only sequences above the last one given pass.
 */
export async function followTask(ctx: LiveContext, accountId: string, taskId: string): Promise<TaskFollow> {
  ctx.link.assertUp()
  const { inbox, release } = await ctx.liveEvents.subscribe(accountId, taskId)
  try {
    const reader = new LogReader(ctx)
    const stream = streamOf('task')
    const filter = aggregateSubjects('task', accountId, taskId)
    const last = await reader.lastFromLeader(stream, filter)
    const history = last === 0 ? [] : (await reader.read(stream, filter, 1, last)).events
    const lastGiven = history.at(-1)
    return {
      history,
      release,
      async *live(afterSeq, signal) {
        if (lastGiven && endsTask(lastGiven.type)) return
        let given = Math.max(afterSeq, lastGiven?.seq ?? 0)
        for await (const event of inbox.events(signal)) {
          if (event.seq <= given) continue
          yield event
          given = event.seq
          if (endsTask(event.type)) return
        }
      },
    }
  } catch (err) {
    release()
    throw err
  }
}

import type { AppContext } from '../../src/app-context.js'
import type { FireContext, KnownSchedule, TickToDecide } from '../../src/commands/schedules/fire-tick.js'
import { TickRate } from './tick-rate.js'

/**
 * How a scheduler process decides a tick: the account's tick rate kept in memory (its
 * partition is this scheduler's alone, ADR 0047), every attempt counted, and no inline
 * projection of what it stores.
 */
export function schedulerFireContext(infra: AppContext): FireContext {
  const rate = new TickRate(infra.config.SCHEDULE_TICKS_PER_MIN)
  // Nobody waits to read a tick back from the read models (the projector applies it), and two
  // read-model writes per tick on the tick's path were the scheduler's MongoDB load at a tick,
  // beside the read of every active schedule (bench:schedules).
  const projectInline = () => Promise.resolve()
  return {
    ...infra,
    projectInline,
    admitTick: (accountId, now) => rate.admit(accountId, now),
    onAttempt: (outcome, known, tick) => recordAttempt(infra, outcome, known, tick),
  }
}

/** An attempt refused by the guard is another scheduler's tick (a takeover): logged, so that a cluster test can count them per tick. */
function recordAttempt(infra: Pick<AppContext, 'metrics' | 'log'>, outcome: 'stored' | 'refused', known: KnownSchedule, tick: TickToDecide): void {
  infra.metrics.tickAttempted(outcome)
  if (outcome !== 'refused') return
  const { aggregateId: scheduleId, accountId } = known.key
  infra.log.info({ scheduleId, accountId, scheduledFor: tick.scheduledFor.toISOString() }, 'scheduler: tick attempt refused by the guard')
}

import type { AppContext } from '../../src/app-context.js'
import { operator } from '../../src/commands/execute.js'
import { dueTicks } from '../../src/commands/schedules/due-ticks.js'
import { fireTick, type FireContext } from '../../src/commands/schedules/fire-tick.js'
import { TickBatch, tickAppends } from '../../src/commands/schedules/tick-batch.js'
import { Slots } from '../webhooks/slots.js'
import { GroupedTickAppends } from './grouped-tick-appends.js'
import { schedulerFireContext } from './fire-context.js'
import type { Followed, FollowedSchedules } from './followed-schedules.js'
import { batchesOf } from './at-most.js'

/** At most this many of an account's ticks decided as one batch (and handed to the group commit whole): 200 messages. */
const BATCH_TICKS = 100
/** A schedule whose tick failed (NATS out of reach) is tried again after this. */
const RETRY_MS = 1000
/**
 * Batches decided at once per atomic batch slot: while some append, the next ones' checks are
 * under way. With only as many decided as appended, an account's slot was held through its
 * checks (then a budget read and an identity entry per tick: about as long as the append
 * itself) and the appends waited on them (a timing probe, ADR 0056).
 */
const DECIDING_PER_SLOT = 2

/**
 * Decides the due ticks of the followed schedules, an account at a time (ADR 0051): an
 * account's due schedules share one read of its budget, and their fired ticks are appended
 * together, BATCH_TICKS to a batch. Two bounds, so that the checks of some accounts run while
 * others append (ADR 0056): `DECIDING_PER_SLOT` × `concurrency` batches are decided at once
 * (their checks: session, budget), and the decided batches go through a group commit
 * (`GroupedTickAppends`, ADR 0060) with `concurrency` atomic batches in flight: those handed in
 * meanwhile leave together in the next one, whatever their accounts. An account being decided
 * is left out of the passes meanwhile.
 */
export class TickFiring {
  private readonly context: FireContext
  /** Batches being decided (their checks, then their append). */
  private readonly decisions: Slots
  /** The event store's atomic batches, group-committed. */
  private readonly appends: GroupedTickAppends
  private readonly inFlight = new Set<Promise<void>>()
  /** Accounts whose due ticks are being decided: their next due ones wait for a later pass. */
  private readonly deciding = new Set<string>()
  private stopped = false

  constructor(
    private readonly infra: AppContext,
    private readonly followed: FollowedSchedules,
    private readonly owns: (accountId: string) => boolean,
    concurrency: number,
  ) {
    this.context = schedulerFireContext(infra)
    this.decisions = new Slots(DECIDING_PER_SLOT * concurrency, 0)
    this.appends = new GroupedTickAppends(tickAppends(infra.events), concurrency)
  }

  /** One pass of the loop: starts deciding every account that has due schedules and is not being decided. */
  fireDue(): void {
    if (this.stopped) return
    const due = this.followed.dueByAccount(this.infra.clock().getTime(), (accountId) => !this.deciding.has(accountId))
    if (due.size === 0) return
    // The accounts due at one instant share one fence of the spend view (ADR 0056).
    const budgets = this.infra.budgets.together()
    for (const [accountId, entries] of due) this.startDeciding(accountId, entries, budgets)
  }

  /** No pass starts nor batch takes a slot from now on; resolves once the decisions under way have ended. */
  async stop(): Promise<void> {
    this.stopped = true
    this.decisions.close()
    await Promise.allSettled([...this.inFlight])
  }

  private startDeciding(accountId: string, entries: readonly Followed[], budgets: FireContext['budgets']): void {
    this.deciding.add(accountId)
    for (const entry of entries) entry.busy = true
    const run = this.decideAccount(entries, budgets).finally(() => {
      this.deciding.delete(accountId)
      this.inFlight.delete(run)
    })
    this.inFlight.add(run)
  }

  /** An account's due schedules at one instant: one budget read for them all, and their ticks in batches. */
  private async decideAccount(entries: readonly Followed[], together: FireContext['budgets']): Promise<void> {
    const context: FireContext = { ...this.context, budgets: together }
    await Promise.all(batchesOf(entries, BATCH_TICKS).map((batch) => this.decideBatch(batch, context)))
  }

  /** Up to BATCH_TICKS schedules whose fired ticks go in one atomic batch, once a slot is free; none once stopping. */
  private async decideBatch(entries: readonly Followed[], context: FireContext): Promise<void> {
    const slot = await this.decisions.reserve()
    try {
      if (!slot) return
      const batch = new TickBatch(this.appends, entries.length)
      await Promise.all(entries.map((entry) => this.decideAsMember(batch, entry, context)))
    } finally {
      slot?.release()
      for (const entry of entries) entry.busy = false
      this.followed.lookAgain()
    }
  }

  /** One schedule's part of a batch: its first fired tick joins it; it leaves the batch when done, fired or not, so the batch need not wait for it. */
  private async decideAsMember(batch: TickBatch, entry: Followed, context: FireContext): Promise<void> {
    const member = batch.member()
    try {
      await this.decideDue(entry, { ...context, appendFired: member.append })
    } finally {
      member.done()
    }
  }

  /**
   * Every due tick of one schedule, oldest first: the missed ones once, then each in the
   * window; no further once the partition is another scheduler's. What was stored before a
   * failure is kept, so that the retry is not refused by the guard for a tick it stored itself.
   */
  private async decideDue(entry: Followed, context: FireContext): Promise<void> {
    const decidedFrom = entry.known
    let known = decidedFrom
    const owned = () => !this.stopped && this.owns(known.key.accountId)
    try {
      const { missed, due } = dueTicks(known.state, this.infra.clock())
      if (missed) known = await fireTick(context, known, { scheduledFor: missed.scheduledFor, missedTicks: missed.count }, operator())
      for (const scheduledFor of due) {
        if (!owned()) break
        known = await fireTick(context, known, { scheduledFor }, operator())
      }
    } catch (err) {
      entry.retryAt = Date.now() + RETRY_MS
      this.infra.log.warn({ err, scheduleId: known.key.aggregateId }, 'scheduler: a tick could not be decided; trying again')
    }
    this.followed.remember(known, decidedFrom)
  }
}

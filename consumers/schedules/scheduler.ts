import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { AppContext } from '../../src/app-context.js'
import { settleWithin } from '../../src/infra/deadline.js'
import { activeSchedulesAfter } from '../../projections/index.js'
import { operator } from '../../src/commands/execute.js'
import { dueTicks } from '../../src/commands/schedules/due-ticks.js'
import { nextFireAfter } from '../../src/commands/schedules/fire-times.js'
import { TickBatch } from '../../src/commands/schedules/tick-batch.js'
import { fireTick, type FireContext, type KnownSchedule } from '../../src/commands/schedules/fire-tick.js'
import { Schedule } from '../../src/domain/schedules/schedule.js'
import { Slots } from '../webhooks/slots.js'
import { OwnedPartitions } from './owned-partitions.js'
import { TickRate } from './tick-rate.js'

export interface SchedulerOptions {
  /** How often the active schedules are read (SCHEDULER_REFRESH_MS). */
  readonly refreshMs: number
  /** How often due ticks are looked for. */
  readonly loopMs: number
  /** Batches of ticks decided at once in this process (each holds an atomic batch slot while it appends). */
  readonly concurrency: number
}

interface Entry {
  known: KnownSchedule
  /** The next tick, computed when the schedule changed: the loop only compares times. */
  next: Date | null
  busy: boolean
  /** After a failure (NATS out of reach), not before this. */
  retryAt: number
}

const PAGE = 1000
/** At most this many schedules' ticks in one atomic batch: 200 messages, of the server's 1,000. */
const BATCH_TICKS = 100
const RETRY_MS = 1000
const STOP_STEP_MS = 2000

/**
 * The scheduler role: keeps the active schedules of the partitions it holds leases on (from
 * the schedules read model, each loaded once from the log), and decides each due tick with
 * `fireTick`. Several may run: each fires its share of the partitions (ADR 0047), and the
 * schedule's guard stores each tick once should two hold a partition for a moment (ADR 0039).
 */
export class Scheduler {
  private readonly entries = new Map<string, Entry>()
  private readonly context: FireContext
  private timers: NodeJS.Timeout[] = []
  private inFlight = new Set<Promise<void>>()
  /** Accounts whose due ticks are being decided: their next due ones wait for the next loop. */
  private readonly deciding = new Set<string>()
  private readonly slots: Slots
  private refreshing: Promise<void> = Promise.resolve()
  private partitions: OwnedPartitions | null = null
  private stopped = false

  constructor(
    private readonly infra: AppContext,
    private readonly options: SchedulerOptions,
  ) {
    const rate = new TickRate(infra.config.SCHEDULE_TICKS_PER_MIN)
    // No inline projection of ticks: nobody waits to read a tick back from the read models (the
    // projector applies it), and two read-model writes per tick on the tick's path were the
    // scheduler's MongoDB load at a tick, beside the read of every active schedule (bench:schedules).
    const projectInline = () => Promise.resolve()
    const onAttempt: FireContext['onAttempt'] = (outcome, known, tick) => this.attempted(outcome, known, tick)
    this.context = { ...infra, projectInline, admitTick: (accountId, now) => rate.admit(accountId, now), onAttempt }
    this.slots = new Slots(options.concurrency, 0)
  }

  async start(): Promise<void> {
    const { js, config, readModels, log } = this.infra
    const memberId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
    const scope = { database: readModels.db.databaseName, memberId }
    const leases = { replicas: config.NATS_STREAM_REPLICAS, ttlMs: config.SCHEDULER_LEASE_MS }
    this.partitions = await OwnedPartitions.open(js, scope, leases, log.child({ memberId }), () => this.refreshSoon())
    await this.partitions.start()
    this.refreshSoon()
    await this.refreshing
    this.timers = [setInterval(() => this.refreshSoon(), this.options.refreshMs), setInterval(() => this.fireDue(), this.options.loopMs)]
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.slots.close()
    for (const timer of this.timers) clearInterval(timer)
    await Promise.allSettled([...this.inFlight, this.refreshing])
    // NATS gone with us: leases not given back expire after SCHEDULER_LEASE_MS.
    const given = await settleWithin(this.partitions?.stop() ?? Promise.resolve(), STOP_STEP_MS)
    if (given.outcome !== 'done') this.infra.log.warn({ given }, 'stopping: the scheduler could not give its leases back; they expire')
  }

  /** Reads the schedules after the one under way (a lease just taken asks for it at once). */
  private refreshSoon(): void {
    this.refreshing = this.refreshing.then(() => this.refresh()).catch((err: unknown) => this.infra.log.warn({ err }, 'scheduler: could not read the schedules'))
  }

  private attempted(outcome: 'stored' | 'refused', known: KnownSchedule, tick: { readonly scheduledFor: Date }): void {
    this.infra.metrics.tickAttempted(outcome)
    if (outcome === 'refused') {
      const { aggregateId: scheduleId, accountId } = known.key
      this.infra.log.info({ scheduleId, accountId, scheduledFor: tick.scheduledFor.toISOString() }, 'scheduler: tick attempt refused by the guard')
    }
  }

  private owns(accountId: string): boolean {
    return this.partitions?.owns(accountId) ?? false
  }

  /** How many schedules this scheduler follows. */
  get size(): number {
    return this.entries.size
  }

  private async refresh(): Promise<void> {
    const seen = new Set<string>()
    for (let after = ''; ; ) {
      const page = await activeSchedulesAfter(this.infra.readModels, after, PAGE)
      for (const { id, accountId, seq } of page) {
        if (!this.owns(accountId)) continue
        seen.add(id)
        const entry = this.entries.get(id)
        if (!entry) await this.follow({ accountId, aggregateId: id })
        else if (seq > entry.known.version && !entry.busy) await this.learn(entry)
      }
      const last = page.at(-1)
      if (!last || page.length < PAGE) break
      after = last.id
    }
    // Paused or deleted in the read model: learn it from the log before letting go. Of another scheduler's partition: let go.
    for (const [id, entry] of this.entries) {
      if (!this.owns(entry.known.key.accountId)) this.entries.delete(id)
      else if (!seen.has(id) && !entry.busy) await this.learn(entry)
    }
  }

  private async follow(key: KnownSchedule['key']): Promise<void> {
    const loaded = await this.infra.events.load(Schedule, key)
    this.remember({ key, state: loaded.state, version: loaded.version })
  }

  private async learn(entry: Entry): Promise<void> {
    this.remember({ key: entry.known.key, ...(await this.infra.events.catchUp(Schedule, entry.known.key, entry.known)) })
  }

  private remember(known: KnownSchedule): void {
    const id = known.key.aggregateId
    // A read begun before this process's own append ended after it: what it read is older than what is known.
    if (known.version < (this.entries.get(id)?.known.version ?? 0)) return
    if (known.state.status !== 'active' || !this.owns(known.key.accountId)) {
      this.entries.delete(id)
      return
    }
    const after = Math.max(Date.parse(known.state.activeFrom), known.state.lastTick ? Date.parse(known.state.lastTick) : 0)
    const next = nextFireAfter(known.state.spec, new Date(after))
    const entry = this.entries.get(id)
    if (!entry) this.entries.set(id, { known, next, busy: false, retryAt: 0 })
    else Object.assign(entry, { known, next })
  }

  /** The due schedules, by account: each account's are decided together (one read of its budget, one atomic batch per BATCH_TICKS). */
  private fireDue(): void {
    if (this.stopped) return
    const now = this.infra.clock().getTime()
    const due = new Map<string, Entry[]>()
    for (const entry of this.entries.values()) {
      const { accountId } = entry.known.key
      if (entry.busy || !entry.next || entry.next.getTime() > now || entry.retryAt > now || this.deciding.has(accountId) || !this.owns(accountId)) continue
      const ofAccount = due.get(accountId)
      if (ofAccount) ofAccount.push(entry)
      else due.set(accountId, [entry])
    }
    for (const [accountId, entries] of due) {
      this.deciding.add(accountId)
      for (const entry of entries) entry.busy = true
      const run = this.decideAccount(entries).finally(() => {
        this.deciding.delete(accountId)
        this.inFlight.delete(run)
      })
      this.inFlight.add(run)
    }
  }

  /**
   * An account's due schedules at one instant (ADR 0051): their budget checks share one read of
   * the account and one fence of the spend view, and their fired ticks are appended together,
   * up to BATCH_TICKS in one atomic batch holding one slot, handed out across accounts in turn.
   */
  private async decideAccount(entries: readonly Entry[]): Promise<void> {
    const context: FireContext = { ...this.context, budgets: this.infra.budgets.together() }
    const groups = Array.from({ length: Math.ceil(entries.length / BATCH_TICKS) }, (_, i) => entries.slice(i * BATCH_TICKS, (i + 1) * BATCH_TICKS))
    await Promise.all(groups.map((group) => this.decideGroup(group, context)))
  }

  private async decideGroup(group: readonly Entry[], context: FireContext): Promise<void> {
    const slot = await this.slots.reserve()
    try {
      if (!slot) return
      const batch = new TickBatch(this.infra.events, group.length)
      await Promise.all(
        group.map(async (entry) => {
          const member = batch.member()
          try {
            await this.decideDue(entry, { ...context, appendFired: member.append })
          } finally {
            member.done()
          }
        }),
      )
    } finally {
      slot?.release()
      for (const entry of group) entry.busy = false
    }
  }

  /**
   * Every due tick of one schedule, oldest first: the missed ones once, then each in the
   * window; no further once the partition is another scheduler's. What was stored before a
   * failure is kept, so that the retry is not refused by the guard for a tick it stored itself.
   */
  private async decideDue(entry: Entry, context: FireContext): Promise<void> {
    let known = entry.known
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
    this.remember(known)
  }
}

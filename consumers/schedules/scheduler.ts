import type { AppContext } from '../../src/app-context.js'
import { activeSchedulesAfter } from '../../projections/index.js'
import { operator } from '../../src/commands/execute.js'
import { dueTicks } from '../../src/commands/schedules/due-ticks.js'
import { nextFireAfter } from '../../src/commands/schedules/fire-times.js'
import { fireTick, type FireContext, type KnownSchedule } from '../../src/commands/schedules/fire-tick.js'
import { Schedule } from '../../src/domain/schedules/schedule.js'
import { TickRate } from './tick-rate.js'

export interface SchedulerOptions {
  /** How often the active schedules are read (SCHEDULER_REFRESH_MS). */
  readonly refreshMs: number
  /** How often due ticks are looked for. */
  readonly loopMs: number
  /** Schedules deciding a tick at once in this process. */
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
const RETRY_MS = 1000

/**
 * The scheduler role: keeps the active schedules of every account (from the schedules read
 * model, each loaded once from the log), and decides each due tick with `fireTick`. Several
 * may run: each decides every tick, and the schedule's guard stores each tick once (ADR 0039).
 */
export class Scheduler {
  private readonly entries = new Map<string, Entry>()
  private readonly context: FireContext
  private timers: NodeJS.Timeout[] = []
  private inFlight = new Set<Promise<void>>()
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
    this.context = { ...infra, projectInline, admitTick: (accountId, now) => rate.admit(accountId, now) }
  }

  async start(): Promise<void> {
    await this.refresh()
    this.timers = [
      setInterval(() => void this.refresh().catch((err: unknown) => this.infra.log.warn({ err }, 'scheduler: could not read the schedules')), this.options.refreshMs),
      setInterval(() => this.fireDue(), this.options.loopMs),
    ]
  }

  async stop(): Promise<void> {
    this.stopped = true
    for (const timer of this.timers) clearInterval(timer)
    await Promise.allSettled([...this.inFlight])
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
        seen.add(id)
        const entry = this.entries.get(id)
        if (!entry) await this.follow({ accountId, aggregateId: id })
        else if (seq > entry.known.version && !entry.busy) await this.learn(entry)
      }
      const last = page.at(-1)
      if (!last || page.length < PAGE) break
      after = last.id
    }
    // Paused or deleted in the read model: learn it from the log before letting go.
    for (const [id, entry] of this.entries) if (!seen.has(id) && !entry.busy) await this.learn(entry)
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
    if (known.state.status !== 'active') {
      this.entries.delete(id)
      return
    }
    const after = Math.max(Date.parse(known.state.activeFrom), known.state.lastTick ? Date.parse(known.state.lastTick) : 0)
    const next = nextFireAfter(known.state.spec, new Date(after))
    const entry = this.entries.get(id)
    if (!entry) this.entries.set(id, { known, next, busy: false, retryAt: 0 })
    else Object.assign(entry, { known, next })
  }

  private fireDue(): void {
    if (this.stopped) return
    const now = this.infra.clock()
    for (const entry of this.entries.values()) {
      if (this.inFlight.size >= this.options.concurrency) return
      if (entry.busy || !entry.next || entry.next.getTime() > now.getTime() || entry.retryAt > now.getTime()) continue
      entry.busy = true
      const run = this.decideDue(entry).finally(() => {
        entry.busy = false
        this.inFlight.delete(run)
      })
      this.inFlight.add(run)
    }
  }

  /** Every due tick of one schedule, oldest first: the missed ones once, then each in the window. */
  private async decideDue(entry: Entry): Promise<void> {
    try {
      const { missed, due } = dueTicks(entry.known.state, this.infra.clock())
      let known = entry.known
      if (missed) known = await fireTick(this.context, known, { scheduledFor: missed.scheduledFor, missedTicks: missed.count }, operator())
      for (const scheduledFor of due) {
        if (this.stopped) break
        known = await fireTick(this.context, known, { scheduledFor }, operator())
      }
      this.remember(known)
    } catch (err) {
      entry.retryAt = Date.now() + RETRY_MS
      this.infra.log.warn({ err, scheduleId: entry.known.key.aggregateId }, 'scheduler: a tick could not be decided; trying again')
    }
  }
}

import { settleWithin } from '../../src/infra/deadline.js'
import { EveryInTurn } from '../../src/infra/every-in-turn.js'
import type { Projection } from './projection.js'
import type { PartitionLeases } from './leases.js'
import { ProjectionRunner, type RunnerDeps, type RunnerOptions } from './runner.js'
import { byStream } from './streams.js'

const STOP_STEP_MS = 2000

interface Running {
  readonly partitions: string
  readonly runner: ProjectionRunner
  readonly done: Promise<void>
}

/**
 * The projector role: for each stream, one runner writing its projections over the
 * partitions this process holds leases on (all of them when it is the only projector; its
 * share when there are several). Every `renewMs` it renews its leases, and restarts a runner
 * whose partitions changed (taken over from a dead projector, or handed to a new one).
 */
export class Projector {
  /** Runners by stream. */
  private readonly running = new Map<string, Running>()
  private readonly streams: Map<string, Projection[]>
  private readonly renewals: EveryInTurn
  private stopped = false

  constructor(
    private readonly deps: RunnerDeps,
    projections: readonly Projection[],
    private readonly leases: PartitionLeases,
    private readonly options: { readonly renewMs: number; readonly runner?: RunnerOptions },
  ) {
    this.streams = byStream(projections)
    this.renewals = new EveryInTurn(() => this.tick(), options.renewMs)
  }

  start(): Promise<void> {
    return this.renewals.start()
  }

  /**
   * Each step is given STOP_STEP_MS: with NATS gone (stopped with us, as Ctrl-C on `npm start`
   * does) a consumer may never finish closing nor a lease be given back. What a runner had not
   * written is written again by whoever takes its partitions (projections are idempotent), and
   * leases expire.
   */
  async stop(): Promise<void> {
    this.stopped = true
    await this.within(this.renewals.stop(), 'the lease tick under way')
    for (const { runner } of this.running.values()) runner.stop()
    await this.within(Promise.all([...this.running.values()].map((r) => r.done)), 'the projection runners')
    this.running.clear()
    await this.within(this.leases.releaseAll(), 'giving the leases back')
  }

  private async within(step: Promise<unknown>, what: string): Promise<void> {
    const settled = await settleWithin(step, STOP_STEP_MS)
    if (settled.outcome === 'late') this.deps.log.warn({ waitedMs: STOP_STEP_MS }, `stopping: ${what} did not finish in time; left behind`)
    else if (settled.outcome === 'failed') this.deps.log.warn({ err: settled.error }, `stopping: ${what} failed`)
  }

  /** Partitions held, by projection: for `mats projections status` and tests. */
  owned(): Record<string, string> {
    return Object.fromEntries([...this.running].flatMap(([stream, r]) => (this.streams.get(stream) ?? []).map((p) => [p.name, r.partitions])))
  }

  private async tick(): Promise<void> {
    if (this.stopped) return
    try {
      const owned = await this.leases.tick([...this.streams.keys()])
      for (const [stream, projections] of this.streams) await this.follow(stream, projections, owned.get(stream) ?? [])
    } catch (err) {
      // NATS unreachable: the runners keep going; leases that lapse are taken over, which is harmless.
      this.deps.log.warn({ err }, 'could not renew the projection leases')
    }
  }

  private async follow(stream: string, projections: readonly Projection[], partitions: readonly number[]): Promise<void> {
    const key = partitions.join(',')
    const current = this.running.get(stream)
    if (current?.partitions === key) return
    if (current) {
      current.runner.stop()
      await current.done
      this.running.delete(stream)
    }
    if (partitions.length === 0 || this.stopped) return
    const runner = new ProjectionRunner(this.deps, projections, { ...this.options.runner, partitions })
    this.running.set(stream, { partitions: key, runner, done: runner.run() })
    this.deps.log.info({ stream, projections: projections.map((p) => p.name), partitions }, 'projecting partitions')
  }
}

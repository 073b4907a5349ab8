import type { NatsConnection, Subscription } from '@nats-io/transport-node'
import { partitionOf } from './partitions.js'
import type { Projection } from './projection.js'
import { checkpointKey, type ReadModels } from './read-models.js'

/** Core NATS (not stored): outside the event streams' `mats.` subjects on purpose. */
const SUBJECT_ROOT = 'mats-internal.projections'

/** What a projector applied, for every awaited projection of a batch at once (one message a batch, not one a projection: issue 22). */
interface BatchApplied {
  /** The generation each awaited projection of the batch wrote, by name. */
  readonly generations: Readonly<Record<string, number>>
  readonly seq: number
  readonly partitions: readonly number[]
}

/** One projection's batch, as projectors before the batch announcement sent it (`<root>.<projection>.applied`): read during a rolling upgrade. */
interface ProjectionApplied {
  readonly generation: number
  readonly seq: number
  readonly partitions: readonly number[]
}

const BATCH_APPLIED = `${SUBJECT_ROOT}.applied`
const PROJECTION_APPLIED = `${SUBJECT_ROOT}.*.applied`

/** Announces a batch written for every awaited projection among `written`; nothing when none is awaited. */
export function publishProgress(nc: NatsConnection, written: readonly { readonly projection: Projection; readonly generation: number }[], seq: number, partitions: readonly number[]): void {
  const awaited = written.filter((member) => member.projection.awaited)
  if (awaited.length === 0) return
  const announcement: BatchApplied = { generations: Object.fromEntries(awaited.map((m) => [m.projection.name, m.generation])), seq, partitions }
  nc.publish(BATCH_APPLIED, JSON.stringify(announcement))
}

/**
 * Lets a reader wait until a projection has applied a given stream sequence for an
 * account's partition: every projector announces each batch it applied of a projection
 * marked `awaited` (only those can be waited for), and a reader that
 * must see its own writes (a list after a 201) waits for that instead of polling MongoDB.
 */
export class ProjectionProgress {
  /** Applied sequence by `<projection>@<generation>#<partition>`. */
  private readonly applied = new Map<string, number>()
  private readonly waiters = new Set<{ key: string; seq: number; done: (ok: boolean) => void }>()
  private subscriptions: Subscription[] = []

  constructor(
    private readonly nc: NatsConnection,
    private readonly readModels: ReadModels,
  ) {}

  start(): void {
    const record = (name: string, generation: number, seq: number, partitions: readonly number[] | undefined) => {
      for (const partition of partitions ?? []) this.record(partitionKey(name, generation, partition), seq)
    }
    this.subscriptions = [
      this.nc.subscribe(BATCH_APPLIED, {
        callback: (err, msg) => {
          if (err) return
          const { generations, seq, partitions } = msg.json<BatchApplied>()
          for (const [name, generation] of Object.entries(generations ?? {})) record(name, generation, seq, partitions)
        },
      }),
      this.nc.subscribe(PROJECTION_APPLIED, {
        callback: (err, msg) => {
          if (err) return
          const { generation, seq, partitions } = msg.json<ProjectionApplied>()
          record(msg.subject.split('.')[2] ?? '', generation, seq, partitions)
        },
      }),
    ]
  }

  stop(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe()
    for (const waiter of this.waiters) waiter.done(false)
    this.waiters.clear()
  }

  /** True once `seq` is applied to the active generation for `accountId`; false if `timeoutMs` passes first. */
  async waitFor(projection: Projection, accountId: string, seq: number, timeoutMs: number): Promise<boolean> {
    if (!projection.awaited) throw new Error(`projection ${projection.name} is not announced: mark it awaited to wait for it`)
    const generation = this.readModels.generationOf(projection)
    const partition = partitionOf(accountId)
    const key = partitionKey(projection.name, generation, partition)
    if ((this.applied.get(key) ?? 0) >= seq) return true
    const waiting = new Promise<boolean>((resolve) => {
      const waiter = {
        key,
        seq,
        done: (ok: boolean) => {
          clearTimeout(timer)
          this.waiters.delete(waiter)
          resolve(ok)
        },
      }
      const timer = setTimeout(() => waiter.done(false), timeoutMs)
      this.waiters.add(waiter)
    })
    // A projector that is idle announces nothing: its stored checkpoint may already be enough.
    const stored = await this.readModels.partitionCheckpoints(projection, generation)
    this.record(key, stored[partition] ?? 0)
    return waiting
  }

  private record(key: string, seq: number): void {
    if (seq <= (this.applied.get(key) ?? 0)) return
    this.applied.set(key, seq)
    for (const waiter of this.waiters) if (waiter.key === key && waiter.seq <= seq) waiter.done(true)
  }
}

function partitionKey(name: string, generation: number, partition: number): string {
  return `${checkpointKey(name, generation)}#${partition}`
}

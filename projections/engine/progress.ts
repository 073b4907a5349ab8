import type { NatsConnection, Subscription } from '@nats-io/transport-node'
import { partitionOf } from './partitions.js'
import type { Projection } from './projection.js'
import { checkpointKey, type ReadModels } from './read-models.js'

/** Core NATS (not stored): outside the event streams' `mats.` subjects on purpose. */
const SUBJECT_ROOT = 'mats-internal.projections'

interface Announcement {
  readonly generation: number
  readonly seq: number
  readonly partitions: readonly number[]
}

export function publishProgress(nc: NatsConnection, projection: Projection, generation: number, seq: number, partitions: readonly number[]): void {
  const announcement: Announcement = { generation, seq, partitions }
  nc.publish(`${SUBJECT_ROOT}.${projection.name}.applied`, JSON.stringify(announcement))
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
  private subscription: Subscription | undefined

  constructor(
    private readonly nc: NatsConnection,
    private readonly readModels: ReadModels,
  ) {}

  start(): void {
    this.subscription = this.nc.subscribe(`${SUBJECT_ROOT}.*.applied`, {
      callback: (err, msg) => {
        if (err) return
        const name = msg.subject.split('.')[2] ?? ''
        const { generation, seq, partitions } = msg.json<Announcement>()
        for (const partition of partitions ?? []) this.record(partitionKey(name, generation, partition), seq)
      },
    })
  }

  stop(): void {
    this.subscription?.unsubscribe()
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

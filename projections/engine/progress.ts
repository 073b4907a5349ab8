import type { NatsConnection, Subscription } from '@nats-io/transport-node'
import type { Projection } from './projection.js'
import { checkpointKey, type ReadModels } from './read-models.js'

/** Core NATS (not stored): outside the event streams' `mats.` subjects on purpose. */
const SUBJECT_ROOT = 'mats-internal.projections'

export function publishProgress(nc: NatsConnection, projection: Projection, generation: number, seq: number): void {
  nc.publish(`${SUBJECT_ROOT}.${projection.name}.applied`, JSON.stringify({ generation, seq }))
}

/**
 * Lets a reader wait until a projection has applied a given stream sequence: every
 * projector announces each batch it applied, and a reader that must see its own
 * writes (the budget check) waits for that instead of polling MongoDB.
 */
export class ProjectionProgress {
  private readonly applied = new Map<string, number>()
  private readonly waiters = new Set<{ key: string; seq: number; done: (ok: boolean) => void }>()
  private subscription: Subscription | undefined

  constructor(private readonly nc: NatsConnection, private readonly readModels: ReadModels) {}

  start(): void {
    this.subscription = this.nc.subscribe(`${SUBJECT_ROOT}.*.applied`, {
      callback: (err, msg) => {
        if (err) return
        const name = msg.subject.split('.')[2] ?? ''
        const { generation, seq } = msg.json<{ generation: number; seq: number }>()
        this.record(checkpointKey(name, generation), seq)
      },
    })
  }

  stop(): void {
    this.subscription?.unsubscribe()
    for (const waiter of this.waiters) waiter.done(false)
    this.waiters.clear()
  }

  /** True once `seq` is applied to the active generation; false if `timeoutMs` passes first. */
  async waitFor(projection: Projection, seq: number, timeoutMs: number): Promise<boolean> {
    const generation = this.readModels.generationOf(projection)
    const key = checkpointKey(projection.name, generation)
    if ((this.applied.get(key) ?? 0) >= seq) return true
    const waiting = new Promise<boolean>((resolve) => {
      const waiter = { key, seq, done: (ok: boolean) => { clearTimeout(timer); this.waiters.delete(waiter); resolve(ok) } }
      const timer = setTimeout(() => waiter.done(false), timeoutMs)
      this.waiters.add(waiter)
    })
    // A projector that is idle announces nothing: its stored checkpoint may already be enough.
    this.record(key, await this.readModels.checkpoint(projection, generation))
    return waiting
  }

  private record(key: string, seq: number): void {
    if (seq <= (this.applied.get(key) ?? 0)) return
    this.applied.set(key, seq)
    for (const waiter of this.waiters) if (waiter.key === key && waiter.seq <= seq) waiter.done(true)
  }
}

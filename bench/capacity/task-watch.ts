/**
 * When each task's TaskStarted and end reach NATS, seen by a core subscription of the bench's
 * own: the moment the stream takes the event, before any read model has it. Measured on the
 * bench's clock, which is the clients' (same machine). Open only while a figure needs it: its
 * deliveries are NATS messages too, and the per-task count is taken without it.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { eventSubjectParts, eventTypeSubjects } from '../../src/infra/nats/subjects.js'

type Seen = 'TaskStarted' | 'TaskCompleted' | 'TaskFailed'

export class TaskWatch {
  private readonly seen = new Map<string, Partial<Record<Seen, number>>>()
  private readonly waiters = new Map<string, () => void>()
  /** TaskStarted events per task: more than one is a task run twice. */
  readonly starts = new Map<string, number>()
  /** The worker each task started on, from its TaskStarted. */
  readonly workers = new Map<string, string>()
  /** Each failed task's reason, from its TaskFailed. */
  readonly failures = new Map<string, string>()
  /** Each failed task's error, from its TaskFailed. */
  readonly errors = new Map<string, string>()
  private ended_ = 0

  private constructor(private readonly nc: NatsConnection) {
    for (const type of ['TaskStarted', 'TaskCompleted', 'TaskFailed'] as const) {
      nc.subscribe(eventTypeSubjects('task', type), {
        callback: (_err, msg) => {
          const at = performance.now()
          const { aggregateId: taskId } = eventSubjectParts(msg.subject)
          const times = this.seen.get(taskId) ?? {}
          times[type] ??= at
          this.seen.set(taskId, times)
          if (type === 'TaskStarted') {
            this.starts.set(taskId, (this.starts.get(taskId) ?? 0) + 1)
            this.workers.set(taskId, dataOf(msg.data).workerId ?? '?')
          } else {
            this.ended_++
            if (type === 'TaskFailed') {
              const { reason, error } = dataOf(msg.data)
              this.failures.set(taskId, reason ?? '?')
              this.errors.set(taskId, error ?? '?')
            }
            this.waiters.get(taskId)?.()
          }
        },
      })
    }
  }

  static async open(natsUrl: string): Promise<TaskWatch> {
    const nc = await connect({ servers: natsUrl })
    const watch = new TaskWatch(nc)
    await nc.flush()
    return watch
  }

  /** Tasks whose end was seen (each end event counted). */
  get endedCount(): number {
    return this.ended_
  }

  times(taskId: string): Partial<Record<Seen, number>> {
    return this.seen.get(taskId) ?? {}
  }

  /** Resolves when the task's end was seen; rejects after `timeoutMs`. */
  ended(taskId: string, timeoutMs: number): Promise<void> {
    const times = this.times(taskId)
    if (times.TaskCompleted !== undefined || times.TaskFailed !== undefined) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(taskId)
        reject(new Error(`task ${taskId} did not end within ${timeoutMs} ms`))
      }, timeoutMs)
      this.waiters.set(taskId, () => {
        clearTimeout(timer)
        this.waiters.delete(taskId)
        resolve()
      })
    })
  }

  close(): Promise<void> {
    return this.nc.close()
  }
}

/** The fields of an event's data the bench reads (workerId of TaskStarted, reason of TaskFailed). */
function dataOf(payload: Uint8Array): { workerId?: string; reason?: string; error?: string } {
  const envelope: unknown = JSON.parse(new TextDecoder().decode(payload))
  const data = typeof envelope === 'object' && envelope !== null && 'data' in envelope ? envelope.data : null
  if (typeof data !== 'object' || data === null) return {}
  return {
    ...('workerId' in data && typeof data.workerId === 'string' ? { workerId: data.workerId } : {}),
    ...('reason' in data && typeof data.reason === 'string' ? { reason: data.reason } : {}),
    ...('error' in data && typeof data.error === 'string' ? { error: data.error } : {}),
  }
}

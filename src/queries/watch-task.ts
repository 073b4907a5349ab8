import type { NatsConnection } from '@nats-io/transport-node'
import { aggregateSubjects } from '../infra/nats/subjects.js'

const TERMINAL = new Set(['TaskCompleted', 'TaskFailed'])

export interface TaskWatch {
  /** Resolves true when the task ends, false when `timeoutMs` passes or the watch is closed. */
  ended(timeoutMs: number): Promise<boolean>
  close(): void
}

/**
 * Listens to one task's events as the log publishes them. Start it before the task is
 * created so that no event can slip between the append and the subscription.
 */
export function watchTask(nc: NatsConnection, accountId: string, taskId: string, onEvent?: (type: string) => void): TaskWatch {
  let resolveEnded: (ended: boolean) => void = () => undefined
  const endedOnce = new Promise<boolean>((resolve) => { resolveEnded = resolve })
  const subscription = nc.subscribe(aggregateSubjects('task', accountId, taskId), {
    callback: (err, msg) => {
      if (err) return resolveEnded(false)
      const type = msg.subject.slice(msg.subject.lastIndexOf('.') + 1)
      onEvent?.(type)
      if (TERMINAL.has(type)) resolveEnded(true)
    },
  })
  const close = () => { subscription.unsubscribe(); resolveEnded(false) }
  return {
    close,
    async ended(timeoutMs) {
      const timer = setTimeout(() => resolveEnded(false), timeoutMs)
      try {
        return await endedOnce
      } finally {
        clearTimeout(timer)
        subscription.unsubscribe()
      }
    },
  }
}

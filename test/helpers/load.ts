import type { ApiClient } from './http.js'

export interface Posted {
  /** Tasks whose POST was acknowledged (201). */
  readonly ids: string[]
  /** How many answers of each status; 0 for a request that got none. */
  readonly statuses: Map<number, number>
  /** The slowest answer that was not a 201, in ms. */
  slowestRefusalMs: number
}

export interface Load {
  readonly label: string
  readonly inFlight: number
  /** Stop after this many POSTs... */
  readonly count?: number
  /** ...or once this says so. */
  readonly done?: () => boolean
  readonly onAcknowledged?: (acknowledged: number) => void
}

/** Distinct briefs, `inFlight` at a time, as clients would send them through a fault. */
export async function postTasks(api: ApiClient, sessionId: string, load: Load): Promise<Posted> {
  const posted: Posted = { ids: [], statuses: new Map(), slowestRefusalMs: 0 }
  let next = 0
  const more = () => (load.count === undefined || next < load.count) && !load.done?.()
  await Promise.all(
    Array.from({ length: load.inFlight }, async () => {
      while (more()) {
        const i = next++
        const sentAt = Date.now()
        const res = await api.post<{ task?: { id: string } }>('/v1/tasks', { sessionId, instruction: `${load.label} brief number ${i}` }).catch(() => ({ status: 0, body: { task: undefined } }))
        posted.statuses.set(res.status, (posted.statuses.get(res.status) ?? 0) + 1)
        if (res.status !== 201) posted.slowestRefusalMs = Math.max(posted.slowestRefusalMs, Date.now() - sentAt)
        if (res.status === 201 && res.body.task) {
          posted.ids.push(res.body.task.id)
          load.onAcknowledged?.(posted.ids.length)
        }
      }
    }),
  )
  return posted
}

export const describeStatuses = (statuses: Map<number, number>): string =>
  [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${n} × ${status || 'no answer'}`)
    .join(', ')

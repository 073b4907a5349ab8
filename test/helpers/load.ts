import { setTimeout as sleep } from 'node:timers/promises'
import type { ApiClient, ApiResponse } from './http.js'

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
  /**
   * Behave as the spec asks a client to: a 503 is sent again after its Retry-After, up to
   * this many times, and so is a 409 that follows it (the entry of the try that got the 503,
   * removed a moment later, or its task stored after all and pending: once claimed, the brief
   * is accepted again). Every answer is counted in `statuses`.
   */
  readonly retriesOf503?: number
}

type TaskAnswer = ApiResponse<{ task?: { id: string } }>

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
        const body = { sessionId, instruction: `${load.label} brief number ${i}` }
        let res = await post(api, body)
        let retries = 0
        const sendAgain = () => res.status === 503 || (retries > 0 && res.status === 409)
        for (; sendAgain() && retries < (load.retriesOf503 ?? 0); retries++) {
          count(posted, res.status)
          await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000)
          res = await post(api, body)
        }
        count(posted, res.status)
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

/** Each answer as it comes: `retriesOf503` decides what is sent again, and every 503 is counted. */
function post(api: ApiClient, body: Record<string, unknown>): Promise<TaskAnswer> {
  return api
    .withoutRetry()
    .post<TaskAnswer['body']>('/v1/tasks', body)
    .catch(() => ({ status: 0, body: {}, headers: new Headers() }))
}

function count(posted: Posted, status: number): void {
  posted.statuses.set(status, (posted.statuses.get(status) ?? 0) + 1)
}

export const describeStatuses = (statuses: Map<number, number>): string =>
  [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${n} × ${status || 'no answer'}`)
    .join(', ')

/** The mats side of each figure: what a client of the REST API sees. */
import { randomUUID } from 'node:crypto'
import autocannon from 'autocannon'
import { ALL_PROJECTIONS } from '../projections/index.js'
import { DISPATCH_STREAM } from '../src/infra/nats/dispatch-stream.js'
import type { AppContext } from '../src/app-context.js'
import type { Burst } from './baselines.js'

/** POST /v1/tasks with distinct briefs for `seconds`: 201s per second (anything else fails the run). */
export async function postRate(url: string, headers: Record<string, string>, sessionId: string, seconds: number, connections: number): Promise<number> {
  const run = randomUUID().slice(0, 8)
  let n = 0
  const result = await autocannon({
    url: `${url}/v1/tasks`,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers,
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ sessionId, instruction: `Benchmark brief ${run}-${n++}: plan the launch posts` }) }),
      },
    ],
  })
  const failed = result.non2xx + result.errors + result.timeouts
  if (failed > 0) throw new Error(`POST /v1/tasks: ${failed} requests were not 201`)
  return result.requests.average
}

/** GETs of `path` per second (anything but 2xx fails the run). */
export async function getRate(url: string, headers: Record<string, string>, seconds: number, connections: number): Promise<number> {
  const result = await autocannon({ url, headers, duration: seconds, connections })
  const failed = result.non2xx + result.errors + result.timeouts
  if (failed > 0) throw new Error(`${url}: ${failed} requests were not 2xx`)
  return result.requests.average
}

const POLL_GAP_MS = 5

/**
 * `count` tasks POSTed `inFlight` at a time, each read with GET /v1/tasks/{id} until it is
 * seen completed. Tasks end in about the order they were created, so one reader walks them
 * in that order: it reads the oldest task not yet seen completed, moves on to the next as
 * soon as it is, and waits 5 ms before reading an unfinished one again (one GET per task,
 * plus at most 200 a second). Rate: tasks per second from the first POST to the last
 * completion seen; latency: POST sent to completion seen (a task that ended before an older
 * one is seen late, never early).
 */
export async function matsBurst(url: string, headers: Record<string, string>, sessionId: string, count: number, inFlight: number): Promise<Burst> {
  const run = randomUUID().slice(0, 8)
  const created: { id: string; at: number }[] = []
  const latencies: number[] = []
  const started = Date.now()
  let next = 0
  const post = async () => {
    for (let i = next++; i < count; i = next++) {
      const at = Date.now()
      const res = await fetch(`${url}/v1/tasks`, { method: 'POST', headers, body: JSON.stringify({ sessionId, instruction: `Burst brief ${run}-${i}: plan the launch posts` }) })
      const body = (await res.json()) as { task?: { id: string } }
      if (res.status !== 201 || !body.task) throw new Error(`POST /v1/tasks: ${res.status} ${JSON.stringify(body)}`)
      created.push({ id: body.task.id, at })
    }
  }
  const walk = async () => {
    while (latencies.length < count) {
      const task = created[latencies.length]
      const status = task ? await statusOf(url, headers, task.id) : 'not created yet'
      if (status === 'failed') throw new Error(`task ${task?.id} failed`)
      if (status === 'completed' && task) latencies.push(Date.now() - task.at)
      else await new Promise((r) => setTimeout(r, POLL_GAP_MS))
    }
  }
  await Promise.all([...Array.from({ length: inFlight }, post), walk()])
  return { rate: count / ((Date.now() - started) / 1000), latencies }
}

async function statusOf(url: string, headers: Record<string, string>, taskId: string): Promise<string> {
  const res = await fetch(`${url}/v1/tasks/${taskId}`, { headers })
  const { task } = (await res.json()) as { task: { status: string } }
  return task.status
}

/** Waits until the worker has nothing waiting or running and every read model has applied its stream. */
export async function quiesce(infra: AppContext, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    // The dispatch stream is a work queue: its messages are the tasks waiting, held or running (ADR 0052).
    const dispatch = await infra.jsm.streams.info(DISPATCH_STREAM).catch(() => null)
    const idle = !dispatch || dispatch.state.messages === 0
    let caughtUp = true
    for (const projection of ALL_PROJECTIONS) {
      const { state } = await infra.jsm.streams.info(projection.stream)
      if ((await infra.readModels.checkpoint(projection, infra.readModels.generationOf(projection))) < state.last_seq) caughtUp = false
    }
    if (idle && caughtUp) return
    if (Date.now() > deadline) throw new Error('the service did not settle')
    await new Promise((r) => setTimeout(r, 200))
  }
}

import { randomUUID } from 'node:crypto'
import type { JetStreamManager } from '@nats-io/jetstream'
import t from 'tap'
import { awaitTaskEnd } from '../../src/queries/await-task-end.js'
import { liveConsumers } from '../helpers/live-consumers.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

const servers = await startServers(t)
// The shared live consumer goes as soon as nothing follows (no idle time), so that counts compare plainly.
const service = await startTestService(t, servers, { env: { OFFLINE_AGENT_LATENCY_MS: '50', LIVE_EVENTS_IDLE_MS: '0' } })
const { infra } = service

/** Every consumer on the server, whatever its stream (event streams and KV buckets alike). */
async function consumersOnServer(jsm: JetStreamManager): Promise<number> {
  let total = 0
  for await (const stream of jsm.streams.list()) total += stream.state.consumer_count
  return total
}

t.test('given a running service, when 50 waits are held (25 POSTs whose task completes, 25 that time out), then they hold no consumer of their own, and once they end nothing is left', async (t) => {
  const { api, account } = await aCaller(infra, service.url)
  const session = await api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  const sessionId = session.body.session.id
  // One wait first, so that whatever a process opens once (the budget's live view) is open before counting.
  const warmUp = await api.post<{ task: { status: string } }>('/v1/tasks', { sessionId, instruction: 'Warm up the waits', waitSeconds: 30 })
  t.equal(warmUp.body.task.status, 'completed')
  await until('the shared live consumer to be deleted once the warm-up wait ended', async () => (await liveConsumers(infra.jsm)).length === 0)
  const before = await consumersOnServer(infra.jsm)

  // When
  const timeouts = Array.from({ length: 25 }, () => awaitTaskEnd(infra, account.id, randomUUID(), 3000))
  await until('the 25 waits to join the hub', () => infra.liveEvents.size >= 25)
  await until("the hub's consumer to run", async () => (await liveConsumers(infra.jsm)).length > 0)
  const during = await consumersOnServer(infra.jsm)
  const posts = await Promise.all(Array.from({ length: 25 }, (_, i) => api.post<{ task?: { status: string } }>('/v1/tasks', { sessionId, instruction: `Wait for me ${i}`, waitSeconds: 30 })))
  const timedOut = await Promise.all(timeouts)

  // Then
  t.same(
    // An answer without a task (a 503 on a starved machine) shows as its HTTP status.
    posts.map((p) => p.body.task?.status ?? p.status),
    Array(25).fill('completed'),
    'every POST waited until its task completed',
  )
  t.same(timedOut, Array(25).fill(null), 'every wait on a task without events timed out')
  t.equal(during, before + 1, `25 waits held one consumer between them, the process's shared one (${before} before, ${during} during)`)
  t.equal(infra.liveEvents.size, 0, 'every wait left the hub (no registration, no timer)')
  await until('the shared consumer to be deleted once nothing waits', async () => (await consumersOnServer(infra.jsm)) === before)
})

t.test('given a signal that aborted before the wait could listen to it, when the wait begins, then it ends at once instead of holding for its time limit', async (t) => {
  // Given: a run that was cancelled while it set up its wait (creating the consumer takes seconds on a loaded machine).
  const { account } = await aCaller(infra, service.url)
  const cancelled = AbortSignal.abort(new Error('the run was cancelled'))

  // When
  let ended = false
  const waiting = awaitTaskEnd(infra, account.id, randomUUID(), 600_000, cancelled).then((doc) => {
    ended = true
    return doc
  })

  // Then
  await until('the wait to end', () => ended, 60_000)
  t.equal(await waiting, null, 'a task without events, as it stands')
})

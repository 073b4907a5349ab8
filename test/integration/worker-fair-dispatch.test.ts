import { randomUUID } from 'node:crypto'
import t from 'tap'
import { Task, type TaskEvent } from '../../src/domain/tasks/task.js'
import { aCaller, aSessionBody, taskCreatedData } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

/**
 * Invariant 12 at depth (issue 22, target 3, scaled for a test): one account's backlog is
 * deeper than a worker's lookahead, and the tasks other accounts post meanwhile start within
 * a bound set by the slots, not by the backlog. With one durable in arrival order (before
 * ADR 0054) they would wait for the FLOOD − lookahead tasks ahead of them: FLOOD / CONCURRENCY ×
 * RUN_MS, about 8 minutes here.
 */
const FLOOD = 2000
const OTHERS = 5
const CONCURRENCY = 4
const RUN_MS = 1000
/** A few slots' turns on a loaded machine; the backlog ahead of them would take minutes. */
const BOUND_MS = 20_000

const servers = await startServers(t)
const service = await startTestService(t, servers, {
  env: { WORKER_CONCURRENCY: String(CONCURRENCY), OFFLINE_AGENT_LATENCY_MS: String(RUN_MS) },
})
const { infra } = service

/** FLOOD pending tasks of one account, appended straight to the log (POSTing them would take minutes here). */
async function aFlood(accountId: string, sessionId: string): Promise<void> {
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  for (let i = 0; i < FLOOD; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, FLOOD - i) }, (_, j) => {
        const instruction = `Flood brief ${i + j}: plan the launch posts`
        const data = taskCreatedData(sessionId, instruction, 0)
        const drafts: TaskEvent[] = [{ type: 'TaskCreated', data }]
        return infra.events.append(Task, { accountId, aggregateId: randomUUID() }, drafts, { expectedVersion: 0, metadata, now: new Date() })
      }),
    )
  }
}

async function statusOf(accountId: string, taskId: string): Promise<string> {
  return (await infra.events.load(Task, { accountId, aggregateId: taskId })).state.status
}

t.test('given one account with a backlog deeper than the lookahead, when other accounts post one task each, then each starts within a few slots, not after the backlog', async (t) => {
  const flooder = await aCaller(infra, service.url)
  const floodSession = (await flooder.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  await aFlood(flooder.account.id, floodSession)
  await until('the whole flood queued for dispatch', async () => (await infra.jsm.streams.info('MATS_DISPATCH')).state.last_seq >= FLOOD, 60_000, 100)

  const others = await Promise.all(
    Array.from({ length: OTHERS }, async () => {
      const caller = await aCaller(infra, service.url)
      const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
      return { caller, sessionId: session.body.session.id }
    }),
  )
  const waits = await Promise.all(
    others.map(async ({ caller, sessionId }, i) => {
      const at = Date.now()
      const posted = await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction: `Single brief ${i}: plan the launch posts` })
      await until(`task ${i} of another account to start`, async () => (await statusOf(caller.account.id, posted.body.task.id)) !== 'pending', BOUND_MS + 60_000, 100)
      return Date.now() - at
    }),
  )

  t.ok(Math.max(...waits) <= BOUND_MS, `each started within ${BOUND_MS / 1000} s of its POST: ${waits.map((w) => (w / 1000).toFixed(1)).join(', ')} s`)
  const flood = (await infra.jsm.streams.info('MATS_DISPATCH', { subjects_filter: `mats-dispatch.${flooder.account.id}` })).state.messages
  t.ok(flood > FLOOD / 2, `most of the flood still waits (${flood}): the others did not wait for it`)
})

import t, { type Test } from 'tap'
import { startService } from '../../src/service.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { endedTaskIds, startClusterServers, streamLeader } from '../helpers/cluster.js'
import { exited } from '../helpers/processes.js'
import { identityEntriesHeld } from '../helpers/pending-tasks.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { lifecycleViolations, taskHistories } from '../helpers/task-log.js'
import { until } from '../helpers/wait.js'
import { starvationMeter } from '../helpers/starvation.js'
import { describeStatuses as describe, postTasks } from '../helpers/load.js'

/**
 * Invariant 10: what holds on one node holds on the production topology, three nodes
 * with every stream and bucket replicated three times (R3). Direct gets there may be
 * answered by a replica that has not stored the latest message yet.
 */
const R3 = { NATS_STREAM_REPLICAS: '3', OFFLINE_AGENT_LATENCY_MS: '0', WORKER_ACK_WAIT_MS: '5000', PROJECTOR_LEASE_MS: '3000' }

/** Three nodes, an API with the projector, two workers with connections of their own, and a caller with a session. */
async function clusterRig(t: Test) {
  const servers = await startClusterServers(t)
  const service = await startTestService(t, servers, { env: R3, roles: ['api', 'projector'] })
  for (let i = 0; i < 2; i++) {
    const worker = await startService(testConfig(servers, R3), testLog(), new Set(['worker'] as const))
    t.teardown(() => worker.stop())
  }
  const caller = await aCaller(service.infra, service.url, { monthlyBudgetUsd: 100_000 })
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  return { servers, service, caller, sessionId }
}

t.test('a 3-node R3 cluster: 1,000 tasks all end, none left pending, none run twice', async (t) => {
  const { service, caller, sessionId } = await clusterRig(t)

  // A 503 (the process too starved to answer in time, ADR 0035) is sent again after its Retry-After, as the spec asks of clients.
  const posted = await postTasks(caller.api, sessionId, { count: 1000, inFlight: 20, label: 'cluster', retriesOf503: 20 })
  t.equal(posted.ids.length, 1000, `every brief was acknowledged (${describe(posted.statuses)})`)
  const ended = await until(
    'every task to end',
    async () => {
      // Right after an election a read may time out: that is a moment to wait, not a result.
      const ended = await endedTaskIds(service.infra).catch(() => new Set<string>())
      return posted.ids.every((id) => ended.has(id)) && ended
    },
    120_000,
    500,
  ).catch(() => endedTaskIds(service.infra))

  const stranded = posted.ids.filter((id) => !ended.has(id))
  t.same(stranded, [], 'no task is left pending or running')
  const histories = await taskHistories(service.infra)
  t.same(lifecycleViolations(histories), [], 'no task started twice or ended twice')
  const completed = posted.ids.filter((id) => histories.get(id)?.at(-1)?.type === 'TaskCompleted').length
  t.equal(completed, 1000, 'every task completed')
  // A claim removes its entry in the background, and tries again while NATS times out.
  const released = async () => ((await identityEntriesHeld(service.infra)) === 0 ? 0 : undefined)
  const held = await until('every identity entry to be released', released, 60_000, 500).catch(() => identityEntriesHeld(service.infra))
  t.equal(held, 0, 'no identity entry is left held: every claim released its own')
  t.comment(
    `cluster: 1000 tasks (${describe(posted.statuses)}), ${stranded.length} stranded, ${lifecycleViolations(histories).length} run twice, ${completed} completed, ${held} identity entries left held`,
  )

  const again = await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction: 'cluster brief number 7' })
  t.equal(again.status, 201, 'a brief whose task ended can be posted again: its identity entry was released')
})

t.test('3-node R3 cluster, the tasks stream leader killed under load: nothing acknowledged is lost or stuck, no 500', async (t) => {
  const { servers, service, caller, sessionId } = await clusterRig(t)
  const leader = await streamLeader(service.infra, servers.cluster, 'MATS_TASKS')

  let killedAt = 0
  const starvation = starvationMeter(t)
  const posted = await postTasks(caller.api, sessionId, {
    count: 600,
    inFlight: 20,
    label: 'failover',
    onAcknowledged: (acknowledged) => {
      if (acknowledged === 150 && !killedAt) {
        killedAt = Date.now()
        leader.process.kill('SIGKILL')
      }
    },
  })
  await exited(leader.process)
  t.ok(killedAt > 0, `the leader (${leader.name}) was killed under load`)
  t.equal(posted.statuses.get(500) ?? 0, 0, `no 500 (${describe(posted.statuses)})`)
  t.equal(posted.statuses.get(0) ?? 0, 0, 'every request was answered')
  starvation.within(t, posted.slowestRefusalMs, 2000, 'refusals came within 2 s (the slowest)')
  const postedFor = Date.now() - killedAt

  // A task created after the kill reaches the workers through the dispatch stream, which the
  // server sources from the task stream (ADR 0052); the source lost with the leader is set up
  // again by nats-server after 10 s, then 20 s more, 30 s more... (stream.go calculateRetryBackoff):
  // 39 s after the kill for 420 tasks on a quiet machine, once the API took tasks again within
  // 9 s of it (the spend view no longer stalled on the dead node's consumer).
  const boundMs = 90_000
  const ended = await until(
    'every acknowledged task to end',
    async () => {
      // Right after an election a read may time out: that is a moment to wait, not a result.
      const ended = await endedTaskIds(service.infra).catch(() => new Set<string>())
      return posted.ids.every((id) => ended.has(id)) && ended
    },
    boundMs,
    500,
  ).catch(() => endedTaskIds(service.infra))
  const recoveredMs = Date.now() - killedAt
  const histories = await until('the log to be readable', () => taskHistories(service.infra).catch(() => undefined), 10_000, 200)
  const lost = posted.ids.filter((id) => !histories.has(id))
  const stuck = posted.ids.filter((id) => !ended.has(id))
  t.same(lost, [], 'no acknowledged task is missing from the log')
  t.same(stuck, [], `every acknowledged task ended within ${boundMs} ms of the last POST's answer (${postedFor} ms after the kill)`)
  t.same(lifecycleViolations(histories), [], 'no task started twice or ended twice')
  t.comment(
    `leader kill: ${posted.ids.length} acknowledged (${describe(posted.statuses)}), ${lost.length} lost, ${stuck.length} stuck, slowest refusal ${posted.slowestRefusalMs} ms, posting went on ${postedFor} ms after the kill, all ended ${recoveredMs} ms after the kill`,
  )
})

t.test('3-node R3 cluster, identical briefs raced through two API processes on different nodes: exactly one 201', async (t) => {
  const servers = await startClusterServers(t)
  // No worker: a task stays pending, and an identical brief is refused only while it is (spec).
  const first = await startTestService(t, servers, { env: R3, roles: ['api', 'projector'] })
  const second = await startTestService(
    t,
    {
      ...servers,
      natsUrl: servers.cluster.nodes
        .map((n) => n.url)
        .reverse()
        .join(','),
    },
    { env: R3, roles: ['api'] },
  )
  const caller = await aCaller(first.infra, first.url, { monthlyBudgetUsd: 100_000 })
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const apis = [caller.api, caller.api.withBaseUrl(second.url)]
  for (let round = 0; round < 10; round++) {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => apis[i % 2]!.post('/v1/tasks', { sessionId, instruction: `identical brief of round ${round}` })))
    const statuses = answers.map((a) => a.status)
    t.equal(statuses.filter((s) => s === 201).length, 1, `round ${round}: exactly one 201 of 20`)
    t.ok(
      statuses.every((s) => s === 201 || s === 409),
      `round ${round}: the others 409 (${[...new Set(statuses)].join(', ')})`,
    )
  }
})

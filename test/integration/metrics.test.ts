import { readFile } from 'node:fs/promises'
import t from 'tap'
import { startService } from '../../src/service.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { until } from '../helpers/wait.js'
import { exited, startMats } from '../helpers/processes.js'

/** The value of the first series whose name and labels contain all of `parts`, or undefined. */
function seriesValue(text: string, ...parts: string[]): number | undefined {
  const line = text.split('\n').find((l) => !l.startsWith('#') && parts.every((part) => l.includes(part)))
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1))
}

t.test('GET /metrics: requests by route pattern, tasks by agent and event, runs, usage, projection lag, queue, rate limits, process', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { env: { OFFLINE_AGENT_LATENCY_MS: '0', RATE_LIMIT_META_PER_MIN: '1' } })
  const caller = await aCaller(service.infra, service.url)
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const task = (await caller.api.post<{ task: { id: string; status: string } }>('/v1/tasks', { sessionId, agentType: 'seo', instruction: 'Audit the site', waitSeconds: 20 })).body.task
  t.equal(task.status, 'completed')
  await caller.api.get(`/v1/tasks/${task.id}`)
  t.equal((await caller.api.get('/v1/agents')).status, 200)
  t.equal((await caller.api.get('/v1/agents')).status, 429, 'the meta group allows one a minute here')

  const text = await until('the tasks projection to be measured', async () => {
    const res = await fetch(`${service.url}/metrics`)
    const body = await res.text()
    return res.status === 200 && res.headers.get('content-type')?.startsWith('text/plain') && body.includes('mats_projection_applied_sequence{projection="tasks"') && body
  })
  const role = 'role="api+worker+projector'
  t.equal(seriesValue(text, 'mats_http_requests_total{', 'route="/v1/tasks"', 'method="POST"', 'status="201"', role), 1, 'POST /v1/tasks counted once')
  t.equal(seriesValue(text, 'mats_http_requests_total{', 'route="/v1/tasks/:taskId"', 'status="200"'), 1, 'by route pattern, not by task id')
  t.notOk(text.includes(task.id), 'no task id in any label')
  t.ok((seriesValue(text, 'mats_http_request_duration_seconds_count{', 'route="/v1/tasks"') ?? 0) >= 1, 'a latency histogram')
  t.equal(seriesValue(text, 'mats_tasks_total{', 'event="created"', 'agent="seo"'), 1)
  t.equal(seriesValue(text, 'mats_tasks_total{', 'event="started"', 'agent="seo"'), 1)
  t.equal(seriesValue(text, 'mats_tasks_total{', 'event="completed"', 'agent="seo"'), 1)
  t.equal(seriesValue(text, 'mats_task_run_duration_seconds_count{', 'agent="seo"', 'outcome="completed"'), 1)
  t.ok((seriesValue(text, 'mats_model_tokens_total{', 'provider="offline"', 'direction="output"') ?? 0) > 0, 'tokens by provider and model')
  t.ok((seriesValue(text, 'mats_model_cost_usd_total{', 'provider="offline"') ?? 0) > 0, 'cost by provider and model')
  t.equal(seriesValue(text, 'mats_rate_limit_rejections_total{', 'group="meta"'), 1, 'the 429 is counted by group')
  const caughtUp = await until('the tasks projection to be caught up', async () => {
    const body = await (await fetch(`${service.url}/metrics`)).text()
    return seriesValue(body, 'mats_projection_lag_events{', 'projection="tasks"') === 0 && body
  })
  t.equal(seriesValue(caughtUp, 'mats_projection_lag_seconds{', 'projection="tasks"'), 0, 'caught up: no lag in seconds either')
  t.ok((seriesValue(text, 'mats_projection_applied_sequence{', 'projection="tasks"') ?? 0) > 0, 'and the sequence it reached')
  t.equal(seriesValue(text, 'mats_task_queue_depth'), 0, 'nothing waits')
  t.equal(seriesValue(text, 'mats_task_queue_oldest_seconds'), 0)
  t.ok((seriesValue(text, 'mats_process_resident_memory_bytes') ?? 0) > 0, 'process metrics')

  const dashboard = await readFile(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8')
  const used = new Set([...dashboard.matchAll(/mats_[a-z_]+/g)].map(([name]) => name.replace(/_(bucket|count|sum)$/, '')))
  t.same(
    [...used].filter((name) => !text.includes(`# TYPE ${name} `)),
    [],
    'every series the sample dashboard queries exists',
  )
})

t.test('a worker process without the api role serves /metrics on METRICS_PORT, and the queue shows waiting tasks', async (t) => {
  const servers = await startServers(t)
  const api = await startTestService(t, servers, { roles: ['api', 'projector'] })
  const caller = await aCaller(api.infra, api.url)
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  for (let i = 0; i < 3; i++) await caller.api.post('/v1/tasks', { sessionId, instruction: `Waiting brief ${i}` })
  const worker = await startService(testConfig(servers, { METRICS_PORT: '0', WORKER_CONCURRENCY: '1', OFFLINE_AGENT_LATENCY_MS: '600000' }), testLog(), new Set(['worker'] as const))
  t.teardown(() => worker.stop())
  if (!worker.metricsUrl) throw new Error('no metrics URL')

  const text = await until('the worker to hold its tasks', async () => {
    const body = await (await fetch(worker.metricsUrl!)).text()
    return seriesValue(body, 'mats_tasks_total{', 'event="started"') === 1 && body
  })
  t.match(text, /role="worker"/)
  // The gauges read the dispatch stream at most once a second: one read before the server had sourced the tasks into it says 0.
  const queued = await until('the queue gauges to be read since the tasks were queued', async () => {
    const body = await (await fetch(worker.metricsUrl!)).text()
    return (seriesValue(body, 'mats_task_queue_depth') ?? 0) > 0 && body
  })
  t.equal(seriesValue(queued, 'mats_task_queue_depth'), 3, 'three tasks not acknowledged: one running, two waiting')
  t.ok((seriesValue(queued, 'mats_task_queue_oldest_seconds') ?? 0) > 0, 'the oldest has waited a while')
  t.equal((await fetch(worker.metricsUrl.replace('/metrics', '/other'))).status, 404)
})

t.test("tasks that end without a run of their own are counted by reason: a pending task cancelled, a dead worker's task failed as lost", async (t) => {
  const servers = await startServers(t)
  const api = await startTestService(t, servers, { roles: ['api', 'projector'] })
  const caller = await aCaller(api.infra, api.url)
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const pending = (await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, agentType: 'seo', instruction: 'Cancel me before a worker comes' })).body.task
  t.equal((await caller.api.post(`/v1/tasks/${pending.id}/cancel`, undefined)).status, 200)
  const apiText = await (await fetch(`${api.url}/metrics`)).text()
  t.equal(seriesValue(apiText, 'mats_tasks_total{', 'event="failed"', 'agent="seo"', 'reason="cancelled"'), 1, 'the cancel counted where it was appended')

  const env = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, WORKER_ACK_WAIT_MS: '1000', OFFLINE_AGENT_LATENCY_MS: '600000' }
  const doomed = await startMats(t, ['--role', 'worker'], env)
  const lost = (await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, agentType: 'cro', instruction: 'Run until the worker dies' })).body.task
  await until('the task to run', async () => (await caller.api.get<{ task: { status: string } }>(`/v1/tasks/${lost.id}`)).body.task.status === 'running', 20_000, 50)
  doomed.kill('SIGKILL')
  await exited(doomed)
  const survivor = await startService(testConfig(servers, { METRICS_PORT: '0', WORKER_ACK_WAIT_MS: '1000' }), testLog(), new Set(['worker'] as const))
  t.teardown(() => survivor.stop())
  const text = await until(
    'the survivor to fail it as lost',
    async () => {
      const body = await (await fetch(survivor.metricsUrl!)).text()
      return seriesValue(body, 'mats_tasks_total{', 'event="failed"', 'reason="worker_lost"') === 1 && body
    },
    20_000,
    100,
  )
  t.equal(seriesValue(text, 'mats_tasks_total{', 'event="failed"', 'agent="cro"', 'reason="worker_lost"'), 1, 'worker_lost counted by the worker that failed it, with the agent')
  t.equal(seriesValue(text, 'mats_task_run_duration_seconds_count{', 'agent="cro"'), undefined, 'no run of its own observed')
})

t.test('given no METRICS_TOKEN nor METRICS_PORT, when /metrics is asked on the API port, then a client on this machine is served and one relayed by a proxy is refused 403', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api'] })
  const direct = await fetch(`${service.url}/metrics`)
  t.equal(direct.status, 200, 'curl localhost:PORT/metrics works on a laptop')
  t.match(await direct.text(), /mats_http_requests_total/)
  for (const header of [{ 'x-forwarded-for': '203.0.113.9' }, { forwarded: 'for=203.0.113.9' }]) {
    const relayed = await fetch(`${service.url}/metrics`, { headers: header })
    t.equal(relayed.status, 403, `${Object.keys(header)[0]}: 403`)
    t.same(await relayed.json(), {
      error: 'GET /metrics on the API port answers clients on this machine only: set METRICS_TOKEN (and send it as a bearer token) or METRICS_PORT to scrape it from elsewhere',
      code: 'metrics_local_only',
    })
  }
})

t.test('given METRICS_TOKEN, when /metrics is asked, then only its bearer is served, on the API port and on METRICS_PORT', async (t) => {
  const servers = await startServers(t)
  const token = 'scrape-me-0123456789'
  const api = await startTestService(t, servers, { roles: ['api'], env: { METRICS_TOKEN: token } })
  const worker = await startService(testConfig(servers, { METRICS_TOKEN: token, METRICS_PORT: '0' }), testLog(), new Set(['worker'] as const))
  t.teardown(() => worker.stop())
  for (const url of [`${api.url}/metrics`, worker.metricsUrl ?? '']) {
    for (const [what, headers] of [
      ['no token', {}],
      ['a wrong token', { authorization: 'Bearer scrape-me-0123456788' }],
      ['an API key', { authorization: `Bearer mats_${'x'.repeat(43)}` }],
    ] as const) {
      const res = await fetch(url, { headers })
      t.equal(res.status, 401, `${url} with ${what}: 401`)
      t.equal(res.headers.get('www-authenticate'), 'Bearer')
      t.match(await res.json(), { error: 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"', code: 'unauthenticated' })
    }
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } })
    t.equal(res.status, 200, `${url} with the token: 200`)
    t.match(await res.text(), /mats_process_resident_memory_bytes/)
  }
})

t.test('given METRICS_PORT, when the api role runs, then /metrics is served there only, not on the API port', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api'], env: { METRICS_PORT: '0' } })
  t.equal((await fetch(`${service.url}/metrics`)).status, 404, 'not on PORT')
  const own = await fetch(service.metricsUrl ?? '')
  t.equal(own.status, 200, 'on METRICS_PORT')
  t.match(await own.text(), /role="api"/)
})

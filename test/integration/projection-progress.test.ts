import t from 'tap'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { until } from '../helpers/wait.js'

const servers = await startServers(t)

t.test('projectors announce the batches of the projections readers wait for, and only those', async (t) => {
  // Given the service with a projector, and a subscription to every announcement
  const service = await startTestService(t, servers, { env: { OFFLINE_AGENT_LATENCY_MS: '0' } })
  const announced = new Map<string, number>()
  const sub = service.infra.nc.subscribe('mats-internal.projections.*.applied', {
    callback: (_err, msg) => {
      const name = msg.subject.split('.')[2] ?? ''
      announced.set(name, Math.max(announced.get(name) ?? 0, msg.json<{ seq: number }>().seq))
    },
  })
  t.teardown(() => sub.unsubscribe())
  const caller = await aCaller(service.infra, service.url)
  const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())

  // When tasks are created and run (their events feed every projection of the task stream)
  for (let i = 0; i < 2; i++) {
    const created = await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId: session.body.session.id, instruction: `Plan the launch posts ${i}` })
    t.equal(created.status, 201)
  }
  const head = await service.infra.events.head('task')

  // Then the awaited projections announce the stream's head, in every batch they apply
  await until('the awaited projections to announce the head', () => ['tasks', 'actions', 'task_counts'].every((name) => (announced.get(name) ?? 0) >= head), 60_000)
  await service.infra.nc.flush()
  // And the projections nobody waits for (their batches were applied before these announcements) announce nothing
  t.same([...announced.keys()].sort(), ['actions', 'task_counts', 'tasks'])
})

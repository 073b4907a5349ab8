import t from 'tap'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { until } from '../helpers/wait.js'
import { tasksProjection } from '../../projections/index.js'
import { ALL_PARTITIONS } from '../../projections/engine/partitions.js'

const servers = await startServers(t)

t.test('projectors announce each batch once for all the projections readers wait for, and only those', async (t) => {
  // Given the service with a projector, and a subscription to every announcement (a batch's, and the per-projection ones of older projectors)
  const service = await startTestService(t, servers, { env: { OFFLINE_AGENT_LATENCY_MS: '0' } })
  const announced = new Map<string, number>()
  const batches: string[][] = []
  let perProjection = 0
  const subs = [
    service.infra.nc.subscribe('mats-internal.projections.applied', {
      callback: (_err, msg) => {
        const { generations, seq } = msg.json<{ generations: Record<string, number>; seq: number }>()
        batches.push(Object.keys(generations).sort())
        for (const name of Object.keys(generations)) announced.set(name, Math.max(announced.get(name) ?? 0, seq))
      },
    }),
    service.infra.nc.subscribe('mats-internal.projections.*.applied', {
      callback: () => {
        perProjection++
      },
    }),
  ]
  t.teardown(() => {
    for (const sub of subs) sub.unsubscribe()
  })
  const caller = await aCaller(service.infra, service.url)
  const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())

  // When tasks are created and run (their events feed every projection of the task stream)
  for (let i = 0; i < 2; i++) {
    const created = await caller.api.post<{ task: { id: string } }>('/v1/tasks', { sessionId: session.body.session.id, instruction: `Plan the launch posts ${i}` })
    t.equal(created.status, 201)
  }
  const head = await service.infra.events.head('task')

  // Then the awaited projections announce the stream's head, together, in every batch they apply
  await until('the awaited projections to announce the head', () => ['tasks', 'actions', 'task_counts'].every((name) => (announced.get(name) ?? 0) >= head), 60_000)
  await service.infra.nc.flush()
  // And the projections nobody waits for (their batches were applied before these announcements) announce nothing
  t.same([...announced.keys()].sort(), ['actions', 'task_counts', 'tasks'])
  t.equal(perProjection, 0, 'none a projection')
  t.same(new Set(batches.map((names) => names.join())), new Set(['actions,task_counts,tasks']), `each of the ${batches.length} announcements names the three awaited projections: one message a batch`)
})

t.test('given an announcement of one projection, as a projector of the version before sends it during an upgrade, then a reader waiting on it is answered', async (t) => {
  const service = await startTestService(t, servers, { roles: ['api'] })
  const caller = await aCaller(service.infra, service.url)
  const generation = service.infra.readModels.generationOf(tasksProjection)
  const waiting = service.infra.progress.waitFor(tasksProjection, caller.account.id, 1_000_000, 30_000)
  const announce = () => service.infra.nc.publish('mats-internal.projections.tasks.applied', JSON.stringify({ generation, seq: 1_000_000, partitions: ALL_PARTITIONS }))
  const timer = setInterval(announce, 100)
  t.teardown(() => clearInterval(timer))
  t.equal(await waiting, true, 'the wait ends on the old announcement, well before its 30 s')
})

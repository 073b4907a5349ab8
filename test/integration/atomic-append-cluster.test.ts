import t from 'tap'
import { startClusterServers } from '../helpers/cluster.js'
import { aProxiedWriter, twoTasksLearning } from '../helpers/decisions.js'
import { connectTestInfra } from '../helpers/service.js'

/**
 * Invariant 10 for invariant 5: on three nodes with R3 streams, a decision of several events
 * is still one atomic batch, checked against the aggregate's sequence at its commit (ADR 0026).
 */
const R3 = { NATS_STREAM_REPLICAS: '3' }
const servers = await startClusterServers(t)
const infra = await connectTestInfra(t, servers, R3)

t.test('given an R3 cluster and two tasks of one session learning at once, one held back after its first fact, then every fact of both is kept', async (t) => {
  const race = await twoTasksLearning(infra, await aProxiedWriter(t, servers, R3))
  t.same(
    race.tasks.map((task) => task.recorded),
    [3, 3],
    'each task recorded its three facts',
  )
  t.same(race.kept.toSorted(), race.tasks.flatMap((task) => task.facts).toSorted())
  const info = await infra.jsm.streams.info('MATS_SESSIONS')
  t.same([info.config.num_replicas, info.config.allow_atomic], [3, true])
})

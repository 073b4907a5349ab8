import t, { type Test } from 'tap'
import type { StreamInfo } from '@nats-io/jetstream'
import { DISPATCH_STREAM, ensureDispatchStream } from '../../src/infra/nats/dispatch-stream.js'
import { MatsMetrics } from '../../src/infra/metrics/mats-metrics.js'
import { DispatchSourceWatch, LEADER_SETTLES_MS, SOURCE_SILENT_MS } from '../../consumers/worker/dispatch-source-watch.js'
import { startClusterServers, streamLeader } from '../helpers/cluster.js'
import { connectTestInfra, testLog } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

/**
 * ADR 0069: a worker that finds the dispatch stream's source silent has the stream's leader step
 * down, and a new leader sets the source up at once. The source's silence is given to the watch
 * (a lost task-stream leader makes it, in `cluster.test.ts`); the step-down is the cluster's.
 */

const SILENT_NANOS = (SOURCE_SILENT_MS + 5_000) * 1_000_000

async function aReplicatedDispatchStream(t: Test) {
  const servers = await startClusterServers(t)
  const infra = await connectTestInfra(t, servers, { NATS_STREAM_REPLICAS: '3' })
  await ensureDispatchStream(infra.jsm, 3, false)
  const metrics = new MatsMetrics()
  const watch = new DispatchSourceWatch(infra.nc, infra.jsm, 5_000, metrics, testLog())
  const read = () => until('the dispatch stream', () => infra.jsm.streams.info(DISPATCH_STREAM).catch(() => undefined), 30_000, 200)
  const steppedDown = async () => (await metrics.registry.getSingleMetric('mats_dispatch_source_step_downs_total')?.get())?.values.find((v) => v.labels.outcome === 'stepped')?.value ?? 0
  /** The stream's state once its leader has led long enough to be asked, with a current replica to take over. */
  const settled = () =>
    until(
      'a leader of the dispatch stream settled, with a current replica',
      async () => {
        const info = await read()
        const ledFor = Date.now() - Date.parse(info.cluster?.leader_since ?? '')
        return ledFor >= LEADER_SETTLES_MS && info.cluster?.replicas?.some((peer) => peer.current && !peer.offline) && info
      },
      60_000,
      500,
    )
  return { servers, infra, watch, read, settled, steppedDown }
}

/** The stream's state as read, with its source last heard `activeNanos` ago. */
function heard(info: StreamInfo, activeNanos: number): StreamInfo {
  const [source] = info.sources ?? []
  if (!source) throw new Error('the dispatch stream has no source')
  return { ...info, sources: [{ ...source, active: activeNanos }] }
}

t.test('given a replicated dispatch stream whose source has been silent past the threshold, when the watch checks, then another node leads the stream and the step-down is counted', async (t) => {
  const { servers, infra, watch, settled, steppedDown } = await aReplicatedDispatchStream(t)
  const info = await settled()
  const leader = await streamLeader(infra, servers.cluster, DISPATCH_STREAM)

  await watch.check(heard(info, SILENT_NANOS))

  await until(
    'another node to lead the dispatch stream',
    () =>
      streamLeader(infra, servers.cluster, DISPATCH_STREAM).then(
        (now) => now.name !== leader.name,
        () => false,
      ),
    30_000,
    200,
  )
  t.pass(`${leader.name} stepped down`)
  t.equal(await steppedDown(), 1, 'counted in mats_dispatch_source_step_downs_total')
})

t.test('given a replicated dispatch stream whose source was heard a second ago, when the watch checks, then its leader stays', async (t) => {
  const { watch, read, settled, steppedDown } = await aReplicatedDispatchStream(t)
  const before = await settled()

  await watch.check(heard(before, 1_000_000_000))

  t.equal(await steppedDown(), 0, 'no step-down asked')
  t.equal((await read()).cluster?.leader, before.cluster?.leader, 'the same node leads')
})

t.test(
  'given a silent source on a leader elected a moment ago, when the watch checks, then its leader stays: the leadership moves at most once in LEADER_SETTLES_MS, however many workers watch',
  async (t) => {
    const { watch, read, settled, steppedDown } = await aReplicatedDispatchStream(t)
    const before = await settled()

    await watch.check({ ...heard(before, SILENT_NANOS), cluster: { ...before.cluster, leader_since: new Date().toISOString() } })

    t.equal(await steppedDown(), 0, 'no step-down asked')
    t.equal((await read()).cluster?.leader, before.cluster?.leader, 'the same node leads')
  },
)

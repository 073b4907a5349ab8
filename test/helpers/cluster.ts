import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import type { Test } from 'tap'
import { startMongo, startNats, startNatsCluster, type LocalCluster, type LocalServer } from '../../src/infra/local/servers.js'
import type { AppContext } from '../../src/app-context.js'
import { eventSubjectParts, eventTypeSubjects } from '../../src/infra/nats/subjects.js'
import type { TestServers } from './servers.js'
import { until } from './wait.js'

export interface ClusterServers extends TestServers {
  readonly cluster: LocalCluster
}

/**
 * Three routed nats-servers (JetStream, R3-capable) and a MongoDB-wire server, per test. A
 * cluster that elects no meta leader in time (a port another process took between our asking
 * for it and the server binding it, so a route never forms) is replaced by one on new ports, once.
 */
export async function startClusterServers(t: Test): Promise<ClusterServers> {
  const dir = await mkdtemp(join(tmpdir(), 'mats-cluster-'))
  const mongo = await startMongo({ dataDir: join(dir, 'mongo'), database: 'mats' })
  let cluster: LocalCluster | undefined
  t.teardown(async () => {
    await Promise.all([cluster?.stop(), mongo.stop()])
    await rm(dir, { recursive: true, force: true })
  })
  for (let attempt = 1; ; attempt++) {
    cluster = await startNatsCluster({ dataDir: join(dir, `nats-${attempt}`) })
    const ready = await jetStreamReady(cluster.url).then(
      () => true,
      (err: unknown) => (attempt < 2 ? false : Promise.reject(err)),
    )
    if (ready) break
    await cluster.stop()
  }
  const [first] = cluster.nodes
  if (!first) throw new Error('the cluster has no nodes')
  return { natsUrl: cluster.url, mongoUrl: mongo.url, nats: first, mongo, dir, cluster }
}

/** Routed servers elect a JetStream meta leader a moment after they listen. */
async function jetStreamReady(url: string): Promise<void> {
  const nc = await connect({ servers: url.split(',') })
  try {
    const jsm = await jetstreamManager(nc, { timeout: 1000, checkAPI: false })
    await until(
      'the cluster to elect a JetStream meta leader',
      () =>
        jsm.getAccountInfo().then(
          () => true,
          () => false,
        ),
      20_000,
      200,
    )
  } finally {
    await nc.close()
  }
}

/** The node that leads a stream now. */
export async function streamLeader(infra: AppContext, cluster: LocalCluster, stream: string) {
  // On a starved machine one request may outlast NATS_TIMEOUT_MS: a moment to ask again, not a result.
  const info = await until(`${stream}'s state`, () => infra.jsm.streams.info(stream).catch(() => undefined), 30_000, 200)
  const name = info.cluster?.leader
  const node = cluster.nodes.find((n) => n.name === name)
  if (!node) throw new Error(`no node leads ${stream} (leader: ${name ?? 'none'})`)
  return node
}

/** Ids of the tasks that have a terminal event in the log. */
export async function endedTaskIds(infra: AppContext): Promise<Set<string>> {
  const ended = new Set<string>()
  for (const type of ['TaskCompleted', 'TaskFailed']) {
    const info = await infra.jsm.streams.info('MATS_TASKS', { subjects_filter: eventTypeSubjects('task', type) })
    for (const subject of Object.keys(info.state.subjects ?? {})) ended.add(eventSubjectParts(subject).aggregateId)
  }
  return ended
}

/** Starts a node of the cluster again (after a kill) on its port, from its configuration and store; stopped at the test's end. */
export async function restartNode(t: Test, node: LocalCluster['nodes'][number]): Promise<LocalServer> {
  const restarted = await startNats({ dataDir: dirname(node.configFile), port: node.port, args: ['-c', node.configFile] })
  t.teardown(() => restarted.stop())
  return restarted
}

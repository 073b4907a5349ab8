import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import t from 'tap'
import { loadConfig } from '../../src/config.js'
import { freePort, startNats, type LocalServer } from '../../src/infra/local/servers.js'
import { natsConnectionOptions } from '../../src/infra/nats/connection-options.js'
import { ensureStreams } from '../../src/infra/nats/streams.js'
import { until } from '../helpers/wait.js'

/**
 * docker-compose.yml's NATS cluster without Docker: three nats-servers run deploy/nats/nats.conf
 * as the containers do, with only the addresses moved to loopback ports and the store to a
 * temporary directory, and mats connects to them as its containers do (user and password, R3 streams).
 */
const DEPLOY_CONFIG = await readFile(resolve(import.meta.dirname, '../../deploy/nats/nats.conf'), 'utf8')
const MATS_PASSWORD = 'mats-password-for-this-test'
const ROUTE_PASSWORD = 'route-password-for-this-test'

const dir = await mkdtemp(join(tmpdir(), 'mats-deploy-nats-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))

interface Node {
  readonly name: string
  readonly routePort: number
  readonly monitorPort: number
}

/** The deploy file, its store moved from the container's volume to `dataDir` and its listeners to loopback ports. */
async function nodeConfig(node: Node, dataDir: string): Promise<string> {
  const moves: [RegExp, string][] = [
    [/^(\s*store_dir:) \/data$/m, `$1 "${join(dataDir, 'jetstream')}"`],
    [/^(http:) 0\.0\.0\.0:8222$/m, `$1 127.0.0.1:${node.monitorPort}`],
    [/^(\s*listen:) 0\.0\.0\.0:6222$/m, `$1 127.0.0.1:${node.routePort}`],
  ]
  let config = DEPLOY_CONFIG
  for (const [line, replacement] of moves) {
    if (!line.test(config)) throw new Error(`deploy/nats/nats.conf has no line ${line}: update this test`)
    config = config.replace(line, replacement)
  }
  await mkdir(dataDir, { recursive: true })
  const file = join(dataDir, 'nats.conf')
  await writeFile(file, config)
  return file
}

interface RunningNode {
  readonly server: LocalServer
  readonly output: () => string
}

async function startNode(node: Node, routes: string[], routePassword: string): Promise<RunningNode> {
  const dataDir = join(dir, node.name)
  let output = ''
  const server = await startNats({
    dataDir,
    // The client address and port come from startNats; the routes from the command line, as in docker-compose.yml.
    args: ['-c', await nodeConfig(node, dataDir), '--routes', routes.join(',')],
    env: { NATS_SERVER_NAME: node.name, NATS_MATS_PASSWORD: MATS_PASSWORD, NATS_ROUTE_PASSWORD: routePassword },
    onOutput: (text) => {
      output += text
    },
  })
  t.teardown(() => server.stop())
  return { server, output: () => output }
}

/** The names of the nodes `node` holds a route to (nats-server pools several connections per peer). */
async function peersOf(node: Node): Promise<string[]> {
  const body: unknown = await (await fetch(`http://127.0.0.1:${node.monitorPort}/routez`)).json()
  const routes = typeof body === 'object' && body !== null && 'routes' in body && Array.isArray(body.routes) ? body.routes : []
  const names = routes.map((route: unknown) => (typeof route === 'object' && route !== null && 'remote_name' in route ? String(route.remote_name) : '?'))
  return [...new Set(names)].sort()
}

const aNode = async (name: string): Promise<Node> => ({ name, routePort: await freePort(), monitorPort: await freePort() })
const nodes = await Promise.all(['nats-1', 'nats-2', 'nats-3'].map(aNode))
// As the compose command gives them: route user and password in each URL.
const routeUrls = (password: string) => nodes.map((node) => `nats-route://route:${password}@127.0.0.1:${node.routePort}`)
const cluster = await Promise.all(nodes.map((node) => startNode(node, routeUrls(ROUTE_PASSWORD), ROUTE_PASSWORD)))
const NATS_URL = cluster.map(({ server }) => server.url).join(',')

t.test('given the three nodes, they join each other through the authenticated routes', async (t) => {
  for (const node of nodes) {
    const others = nodes.filter((other) => other !== node).map((other) => other.name)
    await until(`${node.name} to route to ${others.join(' and ')}`, async () => (await peersOf(node)).join() === others.join())
    t.pass(`${node.name} routes to ${others.join(' and ')}`)
  }
})

t.test('given the mats user, mats creates its streams with three replicas and they are current', async (t) => {
  const nc = await connect(natsConnectionOptions(loadConfig({ NATS_URL, NATS_USER: 'mats', NATS_PASSWORD: MATS_PASSWORD })))
  t.teardown(() => nc.close())
  // A new cluster elects its JetStream meta leader after the routes are up; until then the API does not answer.
  const jsm = await jetstreamManager(nc, { checkAPI: false })
  await until(
    'the JetStream meta leader',
    async () =>
      jsm.getAccountInfo().then(
        () => true,
        () => false,
      ),
    20_000,
  )
  await ensureStreams(jsm, { replicas: 3 })
  const info = await until(
    'MATS_TASKS replicas to be current',
    async () => {
      const stream = await jsm.streams.info('MATS_TASKS')
      const replicas = stream.cluster?.replicas ?? []
      return replicas.length === 2 && replicas.every((replica) => replica.current) && stream
    },
    20_000,
  )
  t.equal(info.config.num_replicas, 3)
  t.equal(info.config.name, 'MATS_TASKS')
})

t.test('given no credentials or a wrong password, a client is refused', async (t) => {
  const refused = (env: Record<string, string>) =>
    connect({ ...natsConnectionOptions(loadConfig({ NATS_URL, ...env })), timeout: 2000 }).then(
      async (nc) => {
        await nc.close()
        return 'connected'
      },
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    )
  t.match(await refused({}), /authorization violation/i, 'anonymous')
  t.match(await refused({ NATS_USER: 'mats', NATS_PASSWORD: 'guess' }), /authorization violation/i, 'a wrong password')
})

t.test('given a node that does not know the route password, it cannot join', async (t) => {
  const peersBefore = await Promise.all(nodes.map(peersOf))
  const node = await aNode('intruder')
  const intruder = await startNode(node, routeUrls('wrong-route-password'), 'wrong-route-password')
  await until('every node to turn the intruder away', () =>
    nodes.every(({ name }) => intruder.output().includes(`Route Error 'Authorization Violation'`) && intruder.output().includes(`Remote: ${name}`)),
  )
  t.same(await peersOf(node), [], 'the intruder has no route')
  t.same(await Promise.all(nodes.map(peersOf)), peersBefore, 'no node routes to it')
})

import t, { type Test } from 'tap'
import type { JsMsg } from '@nats-io/jetstream'
import type { AppContext } from '../../src/app-context.js'
import { StreamFollower } from '../../src/infra/nats/stream-follower.js'
import { startClusterServers } from '../helpers/cluster.js'
import { exited } from '../helpers/processes.js'
import { connectTestInfra, testLog } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

/**
 * Invariant 10 for what follows a stream (the spend view, the scheduler's changes, the
 * projectors, cancellations): its ordered consumer lives on one node, and when that node dies
 * the follower must notice and follow again from where it was. nats.js alone noticed after two
 * missed heartbeats of 15 s, then waited a whole 30 s pull when its check timed out: schedulers
 * stood still 30 to 40 s (faults/schedules-cluster); a consumer whose node stayed down was never
 * recreated. Here: an event stored after the kill is read within 20 s of it.
 */
const STREAM = 'MATS_TASKS'
const SUBJECT = 'mats.task.follower-test.failover.TaskCreated'
const PREFIX = 'test_failover_'

type Placement = 'another node' | "the client's own node"

/**
 * Three nodes, a client connected to the first (it learns the others from it), and a follower
 * whose consumer is on the first or on another node; that node is killed, an event stored after.
 * Killing the client's own node also makes it reconnect elsewhere, after which nats.js watched
 * no heartbeat until the consumer's info answered.
 */
async function killTheConsumersNode(t: Test, placement: Placement) {
  const servers = await startClusterServers(t)
  const [home] = servers.cluster.nodes
  const infra = await connectTestInfra(t, { ...servers, natsUrl: home!.url }, { NATS_STREAM_REPLICAS: '3' })
  const onHome = placement !== 'another node'
  await leadWhere(infra, (leader) => (leader === home!.name) === onHome)
  const read: number[] = []
  const follower = await followWhere(
    infra,
    (node) => (node === home!.name) === onHome,
    (msg) => read.push(msg.seq),
  )
  t.teardown(() => follower.stop())
  const hostName = await consumerNode(infra)
  const node = servers.cluster.nodes.find((n) => n.name === hostName)!

  const killedAt = Date.now()
  node.process.kill('SIGKILL')
  await exited(node.process)
  const stored = await until('the event to be stored by the nodes left', () => infra.js.publish(SUBJECT, '{}').catch(() => undefined), 60_000, 200)
  await until('the follower to read the event stored after the kill', () => read.includes(stored.seq), 90_000, 50)
  return { readAfterMs: Date.now() - killedAt, node: node.name, seq: stored.seq }
}

for (const placement of ['another node', "the client's own node"] as const) {
  t.test(`given a follower whose consumer is on ${placement}, when that node is killed and an event is stored after, then the follower reads it within 20 s of the kill`, async (t) => {
    const { readAfterMs, node, seq } = await killTheConsumersNode(t, placement)

    t.ok(readAfterMs < 20_000, `read ${readAfterMs} ms after its consumer's node (${node}) was killed, stored ${seq}`)
  })
}

/** Moves the stream's leadership until `wanted` says yes to its leader: the follower's consumer is placed by it. */
async function leadWhere(infra: AppContext, wanted: (leader: string) => boolean): Promise<void> {
  const leader = async () => (await infra.jsm.streams.info(STREAM).catch(() => undefined))?.cluster?.leader
  await until(
    `${STREAM} to be led by the node wanted`,
    async () => {
      const now = await leader()
      if (now && wanted(now)) return true
      if (now) await infra.nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${STREAM}`, '', { timeout: 5000 }).catch(() => undefined)
      return false
    },
    60_000,
    500,
  )
}

/**
 * A follower whose consumer is on a node `wanted` says yes to (begun again until it is). Right
 * after the leader moved, on a loaded machine, opening the consumer can outlast NATS_TIMEOUT_MS
 * or be refused while the stream elects again, and the leadership may move once more: such an
 * attempt is stopped (its follower would otherwise keep the test alive), the stream led where
 * wanted again, and another made, until a deadline sized for a starved machine.
 */
async function followWhere(infra: AppContext, wanted: (node: string) => boolean, onMessage: (msg: JsMsg) => void): Promise<StreamFollower> {
  let last = 'no attempt ended'
  const placed = until(
    "a follower's consumer on the node wanted",
    async () => {
      await leadWhere(infra, wanted)
      const follower = new StreamFollower({ stream: STREAM, filterSubjects: [SUBJECT], namePrefix: PREFIX, name: 'failover test' }, onMessage, testLog())
      const listening = await follower.listen(infra).then(
        () => true,
        (err: unknown) => {
          last = String(err)
          return false
        },
      )
      try {
        if (listening) {
          const node = await consumerNode(infra)
          if (wanted(node)) return follower
          last = `placed on ${node}`
        }
      } catch (err) {
        await follower.stop()
        throw err
      }
      await follower.stop()
      return undefined
    },
    90_000,
    250,
  )
  return placed.catch((err: unknown) => {
    throw new Error(`no follower's consumer was placed on the node wanted (last attempt: ${last})`, { cause: err })
  })
}

async function consumerNode(infra: AppContext): Promise<string> {
  const infos = await until('the follower consumer to be listed', async () => {
    const listed = []
    try {
      for await (const info of infra.jsm.consumers.list(STREAM)) if (info.name.startsWith(PREFIX)) listed.push(info)
    } catch {
      // On a starved machine one request may outlast NATS_TIMEOUT_MS: a moment to ask again, not a result.
      return undefined
    }
    return listed.length === 1 ? listed : undefined
  })
  const leader = infos[0]?.cluster?.leader
  if (!leader) throw new Error('the follower consumer has no leader')
  return leader
}

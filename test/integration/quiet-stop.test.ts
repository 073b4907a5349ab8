import t from 'tap'
import { DOORBELL_PREFIX } from '../../consumers/webhooks/fan-out-doorbell.js'
import { FanOutCursors } from '../../src/infra/nats/fan-out-cursors.js'
import { liveKeys, PROJECTOR_LEASES, SCHEDULER_LEASES, WEBHOOK_LEASES, WORKER_HEARTBEATS } from '../helpers/leases.js'
import { collectOutput, exited, spawnMats } from '../helpers/processes.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'
import { until } from '../helpers/wait.js'
import { webhookEnv } from '../helpers/webhooks.js'

// Ctrl-C on a process running every role, webhooks on: it stops without a stack trace or a
// warning, and gives back everything it held in NATS, so another process takes over at once.
t.setTimeout(180_000)

t.test('given every role running with webhooks on, when it gets SIGINT, then it exits 0 quietly and holds no lease', async (t) => {
  const servers = await startServers(t)
  const infra = await connectTestInfra(t, servers)
  const child = spawnMats(t, ['start'], { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl, PORT: '0', LOG_LEVEL: 'info', ...webhookEnv() })
  const output = collectOutput(child)
  await until('mats to start', () => output.text().includes('"msg":"mats started"') || child.exitCode !== null, 120_000)
  t.match(output.text(), '"msg":"webhooks started"', 'webhooks are on')
  // Given it holds its leases and its heartbeat (so that their absence later means something).
  await until('the projector to hold its leases', async () => (await liveKeys(infra, PROJECTOR_LEASES)).some((key) => !key.includes('.members.')), 30_000)
  await until('the scheduler to hold its leases', async () => (await liveKeys(infra, SCHEDULER_LEASES)).some((key) => !key.includes('.members.')), 30_000)
  t.not((await liveKeys(infra, WORKER_HEARTBEATS)).length, 0, 'the worker beats')

  const running = output.text().length
  child.kill('SIGINT')
  t.equal(await exited(child), 0, 'exits 0', { output: output.text().slice(-3000) })

  const stopping = output.text().slice(running)
  t.match(stopping, '"msg":"mats stopped"', 'says it stopped')
  t.notMatch(stopping, /\n\s+at /, 'no stack trace', { stopping })
  t.notMatch(stopping, /"level":(40|50|60)/, 'no warning nor error while stopping', { stopping })
  t.same(await liveKeys(infra, PROJECTOR_LEASES), [], 'no projector lease nor membership is left')
  t.same(await liveKeys(infra, WORKER_HEARTBEATS), [], 'no worker heartbeat is left')
  t.same(await liveKeys(infra, SCHEDULER_LEASES), [], 'no scheduler lease nor membership is left')
  t.same(await liveKeys(infra, WEBHOOK_LEASES), [], 'no webhook delivery lease is left')
  // Deliveries hold no message (jobs are read per webhook, ADR 0033): their leases, checked above, are what they hold.
  // The fan-out holds no account's cursor (ADR 0042) and leaves no consumer behind.
  const cursors = await (await FanOutCursors.open(infra.js, { replicas: 1 })).all()
  t.same(
    [...cursors.values()].filter((cursor) => cursor.holder !== null),
    [],
    "no account's fan-out is held",
  )
  const consumers: string[] = []
  for await (const consumer of infra.jsm.consumers.list('MATS_TASKS')) consumers.push(consumer.name)
  t.same(
    consumers.filter((name) => name.startsWith(DOORBELL_PREFIX)),
    [],
    "the fan-out's consumer of task events is gone",
  )
})

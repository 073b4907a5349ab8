/**
 * How long one NATS request of mats takes, on one node and on a 3-node R3 cluster: guarded
 * appends (a publish with an expected last subject sequence and a Nats-Msg-Id, as the event
 * store appends), direct gets of a subject's last message (as reads do) and KV creates (as the
 * identical-task check does), `inFlight` at a time, with no timeout in the way (60 s). It says
 * how often a request outlasts a given NATS_TIMEOUT_MS on this machine as it is now (ADR 0035).
 * Run beside other load to see a busy machine: `node --import tsx bench/nats-request-latency.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { jetstream, jetstreamManager } from '@nats-io/jetstream'
import { Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { startNats, startNatsCluster } from '../src/infra/local/servers.js'
import { percentile } from './stats.js'

const REQUESTS = Number(process.env.REQUESTS ?? 3000)
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 20)
const TIMEOUTS_MS = [800, 2000, 5000]

async function measure(url: string, replicas: number): Promise<Record<string, number[]>> {
  const nc = await connect({ servers: url.split(',') })
  const js = jetstream(nc, { timeout: 60_000 })
  const jsm = await jetstreamManager(nc, { timeout: 60_000, checkAPI: false })
  // Routed servers elect a JetStream meta leader a moment after they listen.
  while (
    !(await jsm.getAccountInfo().then(
      () => true,
      () => false,
    ))
  );
  await jsm.streams.add({ name: 'LATENCY', subjects: ['latency.>'], num_replicas: replicas, allow_direct: true })
  const kv = await new Kvm(js).create('latency', { replicas })
  const times: Record<string, number[]> = { append: [], read: [], kvCreate: [] }
  const timed = async (kind: string, step: () => Promise<unknown>) => {
    const startedAt = performance.now()
    await step()
    times[kind]?.push(performance.now() - startedAt)
  }
  let next = 0
  const lane = async () => {
    while (next < REQUESTS) {
      const subject = `latency.${next++}`
      await timed('append', () => js.publish(subject, 'x'.repeat(600), { msgID: randomUUID(), expect: { lastSubjectSequence: 0, lastSubjectSequenceSubject: subject } }))
      await timed('read', () => jsm.direct.getMessage('LATENCY', { last_by_subj: subject }))
      await timed('kvCreate', () => kv.create(randomUUID(), 'task'))
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane))
  await nc.close()
  return times
}

function report(topology: string, times: Record<string, number[]>): void {
  for (const [kind, values] of Object.entries(times)) {
    const over = TIMEOUTS_MS.map((limit) => `>${limit} ms: ${values.filter((v) => v > limit).length}`).join(', ')
    const [p50, p99, p999] = [50, 99, 99.9].map((p) => percentile(values, p).toFixed(1))
    console.log(`${topology} ${kind}: n=${values.length} p50=${p50} p99=${p99} p99.9=${p999} max=${Math.max(...values).toFixed(0)} ms; ${over}`)
  }
}

const dir = await mkdtemp(join(tmpdir(), 'mats-nats-latency-'))
try {
  const single = await startNats({ dataDir: join(dir, 'single') })
  report('1 node', await measure(single.url, 1))
  await single.stop()
  const cluster = await startNatsCluster({ dataDir: join(dir, 'cluster') })
  report('R3', await measure(cluster.url, 3))
  await cluster.stop()
} finally {
  await rm(dir, { recursive: true, force: true })
}

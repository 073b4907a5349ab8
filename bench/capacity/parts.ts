/**
 * `TARGETS=parts npm run bench:capacity`: what each part of a no-op task costs in CPU on this
 * machine, each measured alone, 8 at a time where it is a round trip. Set against the mats
 * process's CPU per task (TARGETS=dispatch), it says how much of that is the parts a task cannot
 * do without (a POST, NATS round trips, decoding, the agent) and how much is mats' own code
 * between them (ADR 0067).
 *
 *   TARGETS=parts npm run bench:capacity      ROUNDS=3 COUNT=5000
 */
import { randomUUID } from 'node:crypto'
import { buildDeliverable } from '../../consumers/agents/offline/deliverable.js'
import { AGENTS } from '../../src/domain/agents/catalogue.js'
import { decideCreateTask, Task } from '../../src/domain/tasks/task.js'
import { decodeEvent } from '../../src/infra/nats/decode.js'
import { toEnvelope } from '../../src/infra/nats/envelope.js'
import { show, spread } from '../stats.js'
import { httpPostCost } from './parts-http.js'
import { mongoBulkUpsert } from './parts-mongo.js'
import { natsParts } from './parts-nats.js'
import { capacityServers, Stoppers } from './servers.js'
import { socketWriteCost } from './parts-socket.js'

const ROUNDS = Number(process.env.ROUNDS ?? 3)
const COUNT = Number(process.env.COUNT ?? 5000)

/** µs of this process's CPU per call of `part`, `inFlight` calls at a time. */
export async function cpuPerCall(count: number, inFlight: number, part: (i: number) => unknown): Promise<number> {
  let next = 0
  const started = process.cpuUsage()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < count; i = next++) await part(i)
    }),
  )
  const used = process.cpuUsage(started)
  return (used.user + used.system) / count
}

function storedTaskCreated(): { subject: string; seq: number; data: Uint8Array } {
  const [created] = decideCreateTask(
    {
      sessionId: randomUUID(),
      agentType: 'growth-marketer',
      taskType: 'instruction',
      instruction: 'Overhead brief r1-7: plan the launch posts',
      title: null,
      priority: 'normal',
      fingerprint: 'f'.repeat(64),
      identityRevision: 7,
      parentTaskId: null,
      billingMonth: '2026-11',
      reservedMicros: 500_000,
    },
    { status: 'absent' },
  )
  const { subject, envelope } = toEnvelope(Task, { accountId: randomUUID(), aggregateId: randomUUID() }, created!, {
    metadata: { correlationId: randomUUID(), causationId: null, keyId: randomUUID() },
    now: new Date(),
  })
  return { subject, seq: 1, data: new TextEncoder().encode(JSON.stringify(envelope)) }
}

/**
 * The parts, and how many of each a no-op task takes in one mats process, by nats-server's trace
 * of 500 tasks (docs/benchmarks.md, 2026-11-27 morning): the reads of an account, a session and
 * the budget's fence are shared by the tasks of an instant (2.6 messages a task, about 1.3 round
 * trips). A socket write is within each round trip; it is shown, not added.
 */
const PER_TASK = {
  'socket write': 0,
  'guarded append + ack': 3,
  'KV create': 1,
  'direct get (shared reads)': 1.3,
  'publish, no answer': 2,
  'delivery + ack (worker)': 1,
  'ordered delivery': 5,
  'read-model document (bulk)': 1,
  'POST, server side': 1,
  'decode an event': 9,
  'offline deliverable': 1,
}
type Part = keyof typeof PER_TASK

export async function main(): Promise<void> {
  process.stdout.write(`\nparts of a no-op task, each alone: µs of CPU per call, ${ROUNDS} interleaved rounds of ${COUNT}\n`)
  const stoppers = new Stoppers()
  const rounds: Record<Part, number>[] = []
  try {
    const servers = stoppers.add(await capacityServers())
    const nats = await natsParts(servers.natsUrl, stoppers)
    const bulkUpsert = await mongoBulkUpsert(servers.mongoUrl, stoppers)
    const event = storedTaskCreated()
    const growthMarketer = AGENTS.find((agent) => agent.type === 'growth-marketer')!
    const session = { name: 'Bench', companyName: 'Acme', companyUrl: null, industry: null, targetAudience: null, autonomy: 'approval-required' as const, facts: [] }
    const deliverable = (i: number) =>
      buildDeliverable({ task: { id: randomUUID(), agentType: 'growth-marketer', instruction: `Overhead brief r1-${i}: plan the launch posts`, title: null }, agent: growthMarketer, session })
    for (let r = 0; r <= ROUNDS; r++) {
      const round: Record<Part, number> = {
        'socket write': await socketWriteCost(COUNT),
        'guarded append + ack': await cpuPerCall(COUNT, 8, nats.append),
        'KV create': await cpuPerCall(COUNT, 8, nats.kvCreate),
        'direct get (shared reads)': await cpuPerCall(COUNT, 8, nats.directGet),
        'publish, no answer': await cpuPerCall(COUNT, 1, nats.publish),
        'delivery + ack (worker)': await nats.deliveryAndAck(COUNT),
        'ordered delivery': await nats.orderedDelivery(COUNT),
        'read-model document (bulk)': await bulkUpsert(COUNT),
        'POST, server side': await httpPostCost(COUNT),
        'decode an event': await cpuPerCall(COUNT, 1, () => decodeEvent(event)),
        'offline deliverable': await cpuPerCall(COUNT, 1, deliverable),
      }
      // Round 0 warms every path up and is not counted.
      if (r > 0) rounds.push(round)
    }
  } finally {
    await stoppers.stopAll()
  }
  process.stdout.write(`\n  part                         µs per call, median (range)   per task   µs per task\n`)
  let total = 0
  for (const part of Object.keys(PER_TASK) as Part[]) {
    const each = spread(rounds.map((round) => round[part]))
    total += each.median * PER_TASK[part]
    process.stdout.write(`  ${part.padEnd(28)} ${show(each, 1).padEnd(30)} ${String(PER_TASK[part] || '(within)').padEnd(10)} ${(each.median * PER_TASK[part]).toFixed(0)}\n`)
  }
  process.stdout.write(`  ${'the parts of one task'.padEnd(28)} ${''.padEnd(30)} ${''.padEnd(10)} ${total.toFixed(0)} (mats' whole: TARGETS=dispatch)\n`)
}

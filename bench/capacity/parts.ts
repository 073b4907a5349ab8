/**
 * `TARGETS=parts npm run bench:capacity`: what each part of a no-op task costs in CPU on this
 * machine, each measured alone, with the task's own events (parts-task.ts). Set against the mats
 * process's CPU per task (TARGETS=dispatch), it bounds what mats' own code between the parts
 * costs: the rest of the CPU is that code, and whatever the parts cost more when they run mixed
 * in a burst (ADR 0067).
 *
 *   TARGETS=parts npm run bench:capacity      ROUNDS=3 COUNT=5000
 */
import { decodeEvent } from '../../src/infra/nats/decode.js'
import { show, spread } from '../stats.js'
import { cpuPerCall, nextTurn } from './parts-cpu.js'
import { httpPostCost } from './parts-http.js'
import { mongoBulkUpsert } from './parts-mongo.js'
import { natsParts } from './parts-nats.js'
import { socketWriteCost } from './parts-socket.js'
import { aNoOpTasksEvents, BURST_BRIEF, deliverableFor } from './parts-task.js'
import { capacityServers, Stoppers } from './servers.js'

const ROUNDS = Number(process.env.ROUNDS ?? 3)
const COUNT = Number(process.env.COUNT ?? 5000)
const ROUND_TRIPS_IN_FLIGHT = 8

/**
 * The parts, and how many of each a no-op task takes in one mats process, by nats-server's
 * trace of 500 tasks (docs/benchmarks.md, 2026-11-27 morning) and the code:
 * - appends: TaskCreated, TaskStarted, TaskCompleted;
 * - direct gets: the account, session and budget-fence reads, shared by a burst's tasks
 *   (2.6 messages a task: about 1.3 round trips);
 * - a publish with no answer: the identity entry let go (the doorbell rings once per account
 *   and half second, ADR 0064: nothing per task in a burst);
 * - ordered deliveries: the projector's three events and the spend view's two (ADR 0062);
 * - decodes: those five, the worker's delivered task, its log read at the claim (one event)
 *   and at the finish (two);
 * - a socket write is within each round trip: shown, not added.
 */
const PER_TASK = {
  'socket write': 0,
  'guarded append + ack': 3,
  'KV create': 1,
  'direct get (shared reads)': 1.3,
  'publish, no answer': 1,
  'delivery + ack (worker)': 1,
  'ordered delivery': 5,
  'read-model document (bulk of 7)': 1,
  'POST, server side': 1,
  'decode an event': 9,
  'offline deliverable': 1,
}
type Part = keyof typeof PER_TASK

export async function main(): Promise<void> {
  process.stdout.write(`\nparts of a no-op task, each alone: µs of CPU per call, ${ROUNDS} interleaved rounds of ${COUNT} after one not counted\n`)
  const stoppers = new Stoppers()
  const rounds: Record<Part, number>[] = []
  try {
    const servers = stoppers.add(await capacityServers())
    const events = aNoOpTasksEvents()
    const nats = await natsParts(servers.natsUrl, stoppers, events)
    const bulkUpsert = await mongoBulkUpsert(servers.mongoUrl, stoppers)
    const decode = (i: number) => {
      decodeEvent(events[i % events.length]!)
      return nextTurn()
    }
    const deliverable = (i: number) => {
      deliverableFor(`${BURST_BRIEF} ${i}`)
      return nextTurn()
    }
    // Round 0 warms every path up and is not counted.
    for (let r = 0; r <= ROUNDS; r++) {
      const round: Record<Part, number> = {
        'socket write': await socketWriteCost(COUNT),
        'guarded append + ack': await cpuPerCall(COUNT, ROUND_TRIPS_IN_FLIGHT, nats.append),
        'KV create': await cpuPerCall(COUNT, ROUND_TRIPS_IN_FLIGHT, nats.kvCreate),
        'direct get (shared reads)': await cpuPerCall(COUNT, ROUND_TRIPS_IN_FLIGHT, nats.directGet),
        'publish, no answer': await cpuPerCall(COUNT, 1, nats.publish),
        'delivery + ack (worker)': await nats.deliveryAndAck(COUNT),
        'ordered delivery': await nats.orderedDelivery(COUNT),
        'read-model document (bulk of 7)': await bulkUpsert(COUNT),
        'POST, server side': await httpPostCost(COUNT),
        'decode an event': await cpuPerCall(COUNT, 1, decode),
        'offline deliverable': await cpuPerCall(COUNT, 1, deliverable),
      }
      if (r > 0) rounds.push(round)
    }
  } finally {
    await stoppers.stopAll()
  }
  for (const line of partsTable(rounds)) process.stdout.write(`${line}\n`)
}

function partsTable(rounds: readonly Record<Part, number>[]): string[] {
  const lines = ['', '  part                              µs per call, median (range)   per task   µs per task']
  let total = 0
  for (const part of Object.keys(PER_TASK) as Part[]) {
    const each = spread(rounds.map((round) => round[part]))
    const times = PER_TASK[part]
    total += each.median * times
    lines.push(`  ${part.padEnd(33)} ${show(each, 1).padEnd(30)} ${(times === 0 ? '(within)' : String(times)).padEnd(10)} ${(each.median * times).toFixed(0)}`)
  }
  lines.push(`  ${'the parts of one task, alone'.padEnd(33)} ${''.padEnd(30)} ${''.padEnd(10)} ${total.toFixed(0)} (the mats process's CPU per task: TARGETS=dispatch)`)
  return lines
}

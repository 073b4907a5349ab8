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

/** A part of a task: how many a no-op task takes, and µs of CPU per call of it, measured once a round. */
interface Part {
  readonly name: string
  readonly perTask: number
  readonly measure: () => Promise<number>
}

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
async function theParts(stoppers: Stoppers): Promise<Part[]> {
  const servers = stoppers.add(await capacityServers())
  const events = aNoOpTasksEvents()
  const nats = await natsParts(servers.natsUrl, stoppers, events)
  const bulkUpsert = await mongoBulkUpsert(servers.mongoUrl, stoppers)
  const roundTrip = (part: (i: number) => Promise<unknown>) => () => cpuPerCall(COUNT, ROUND_TRIPS_IN_FLIGHT, part)
  const computation = (part: (i: number) => unknown) => () =>
    cpuPerCall(COUNT, 1, (i) => {
      part(i)
      return nextTurn()
    })
  return [
    { name: 'socket write', perTask: 0, measure: () => socketWriteCost(COUNT) },
    { name: 'guarded append + ack', perTask: 3, measure: roundTrip(nats.append) },
    { name: 'KV create', perTask: 1, measure: roundTrip(nats.kvCreate) },
    { name: 'direct get (shared reads)', perTask: 1.3, measure: roundTrip(nats.directGet) },
    { name: 'publish, no answer', perTask: 1, measure: () => cpuPerCall(COUNT, 1, nats.publish) },
    { name: 'delivery + ack (worker)', perTask: 1, measure: () => nats.deliveryAndAck(COUNT) },
    { name: 'ordered delivery', perTask: 5, measure: () => nats.orderedDelivery(COUNT) },
    { name: 'read-model document (bulk of 7)', perTask: 1, measure: () => bulkUpsert(COUNT) },
    { name: 'POST, server side', perTask: 1, measure: () => httpPostCost(COUNT) },
    { name: 'decode an event', perTask: 9, measure: computation((i) => decodeEvent(events[i % events.length]!)) },
    { name: 'offline deliverable', perTask: 1, measure: computation((i) => deliverableFor(`${BURST_BRIEF} ${i}`)) },
  ]
}

export async function main(): Promise<void> {
  process.stdout.write(`\nparts of a no-op task, each alone: µs of CPU per call, ${ROUNDS} interleaved rounds of ${COUNT} after one not counted\n`)
  const stoppers = new Stoppers()
  const perCall = new Map<Part, number[]>()
  try {
    const parts = await theParts(stoppers)
    // Round 0 warms every path up and is not counted.
    for (let r = 0; r <= ROUNDS; r++) {
      for (const part of parts) {
        const micros = await part.measure()
        if (r > 0) perCall.set(part, [...(perCall.get(part) ?? []), micros])
      }
    }
  } finally {
    await stoppers.stopAll()
  }
  for (const line of partsTable(perCall)) process.stdout.write(`${line}\n`)
}

function partsTable(perCall: ReadonlyMap<Part, readonly number[]>): string[] {
  const lines = ['', '  part                              µs per call, median (range)   per task   µs per task']
  let total = 0
  for (const [part, rounds] of perCall) {
    const each = spread(rounds)
    total += each.median * part.perTask
    lines.push(`  ${part.name.padEnd(33)} ${show(each, 1).padEnd(30)} ${(part.perTask === 0 ? '(within)' : String(part.perTask)).padEnd(10)} ${(each.median * part.perTask).toFixed(0)}`)
  }
  lines.push(`  ${'the parts of one task, alone'.padEnd(33)} ${''.padEnd(30)} ${''.padEnd(10)} ${total.toFixed(0)} (the mats process's CPU per task: TARGETS=dispatch)`)
  return lines
}

/**
 * The floor of a tick: what JetStream alone takes to store every firing schedule's pair
 * (ScheduleFired guarded by the schedule's last sequence, TaskCreated guarded as a new
 * aggregate) with the guarantees mats gives them and nothing else: no scheduler, no budget,
 * no session check, no projector. The pairs go as mats sends them (ADR 0051): an account's at
 * a time, BATCH_PAIRS to an atomic batch, IN_FLIGHT batches open at once from one connection
 * (the scheduler's default slots). The stream holds what MATS_TASKS holds for the schedules
 * before the first tick (two events each), so that a guard looks its subject up among as many.
 *
 * Three kinds of guard, to tell what the guard costs the server: `aggregate`, as mats appends
 * (`Nats-Expected-Last-Subject-Sequence-Subject`, the aggregate's wildcard over its event
 * types, on both messages), `schedule` (on ScheduleFired only) and `subject` (the message's own
 * subject, no wildcard). To explore the batches: FLOOR_PAIRS (100) pairs to a batch,
 * FLOOR_IN_FLIGHT (16) batches at once, FLOOR_MIXED=1 to fill batches from any accounts.
 */
import { randomUUID } from 'node:crypto'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node'
import { batchesOf, forEachAtMost } from '../../consumers/schedules/at-most.js'
import { publishAtomically, type BatchMessage } from '../../src/infra/nats/atomic-batch.js'

/** About the sizes of mats' ScheduleFired and TaskCreated envelopes. */
const FIRED = 'f'.repeat(420)
const CREATED = 'c'.repeat(650)
const BATCH_PAIRS = Number(process.env.FLOOR_PAIRS ?? 100)
const IN_FLIGHT = Number(process.env.FLOOR_IN_FLIGHT ?? 16)
const PREFILL_AT_ONCE = 256
const BATCH_TIMEOUT_MS = 60_000

export const GUARD_KINDS = ['aggregate', 'schedule', 'subject'] as const
export type GuardKind = (typeof GUARD_KINDS)[number]

export interface TickFloor {
  /** One tick of every schedule at once: each pair's delay (ms) from the tick's start to its batch's acknowledgement. */
  tick(guard: GuardKind): Promise<number[]>
  stop(): Promise<void>
}

interface Schedule {
  readonly accountId: string
  readonly id: string
}

export async function tickFloor(natsUrl: string, schedules: number, accounts: number): Promise<TickFloor> {
  const nc = await connect({ servers: natsUrl })
  const jsm = await jetstreamManager(nc)
  const stream = `TICK_FLOOR_${randomUUID().slice(0, 8)}`
  const root = stream.toLowerCase()
  await jsm.streams.add({ name: stream, subjects: [`${root}.>`], allow_atomic: true, allow_direct: true, duplicate_window: 120e9 })
  const all: Schedule[] = Array.from({ length: schedules }, (_, i) => ({ accountId: `acct${i % accounts}`, id: randomUUID() }))
  const scheduleSubject = (s: Schedule, type: string) => `${root}.schedule.${s.accountId}.${s.id}.${type}`
  /** The last sequence of each schedule's aggregate, and of its ScheduleFired subject alone. */
  const lastOfAggregate = new Map<string, number>()
  const lastFired = new Map<string, number>()
  await forEachAtMost(all, PREFILL_AT_ONCE, async (s) => {
    for (const type of ['ScheduleCreated', 'ScheduleChanged']) {
      const ack = await jetstreamPublish(nc, scheduleSubject(s, type), FIRED)
      lastOfAggregate.set(s.id, ack)
    }
  })

  const pair = (s: Schedule, guard: GuardKind): BatchMessage[] => {
    const fired = natsHeaders()
    fired.set('Nats-Msg-Id', randomUUID())
    const taskId = randomUUID()
    const created = natsHeaders()
    created.set('Nats-Msg-Id', randomUUID())
    if (guard === 'aggregate' || guard === 'schedule') {
      fired.set('Nats-Expected-Last-Subject-Sequence', String(lastOfAggregate.get(s.id) ?? 0))
      fired.set('Nats-Expected-Last-Subject-Sequence-Subject', `${root}.schedule.${s.accountId}.${s.id}.*`)
    }
    if (guard === 'aggregate') {
      created.set('Nats-Expected-Last-Subject-Sequence', '0')
      created.set('Nats-Expected-Last-Subject-Sequence-Subject', `${root}.task.${s.accountId}.${taskId}.*`)
    }
    if (guard === 'subject') {
      fired.set('Nats-Expected-Last-Subject-Sequence', String(lastFired.get(s.id) ?? 0))
      created.set('Nats-Expected-Last-Subject-Sequence', '0')
    }
    return [
      { subject: scheduleSubject(s, 'ScheduleFired'), payload: FIRED, headers: fired },
      { subject: `${root}.task.${s.accountId}.${taskId}.TaskCreated`, payload: CREATED, headers: created },
    ]
  }

  const batches = process.env.FLOOR_MIXED ? batchesOf(all, BATCH_PAIRS) : byAccount(all).flatMap((own) => batchesOf(own, BATCH_PAIRS))
  return {
    async tick(guard) {
      const started = performance.now()
      const delays: number[] = []
      await forEachAtMost(batches, IN_FLIGHT, async (batch) => {
        const { seq } = await publishAtomically(
          nc,
          batch.flatMap((s) => pair(s, guard)),
          BATCH_TIMEOUT_MS,
        )
        const at = performance.now() - started
        // The batch is stored contiguously, ending at `seq`: pair i's ScheduleFired is its 2i-th message.
        batch.forEach((s, i) => {
          const firedSeq = seq - 2 * batch.length + 1 + 2 * i
          lastOfAggregate.set(s.id, firedSeq)
          lastFired.set(s.id, firedSeq)
          delays.push(at)
        })
      })
      return delays
    },
    async stop() {
      await jsm.streams.delete(stream).catch(() => undefined)
      await nc.close()
    },
  }
}

async function jetstreamPublish(nc: NatsConnection, subject: string, payload: string): Promise<number> {
  const reply = await nc.request(subject, payload, { timeout: BATCH_TIMEOUT_MS })
  const ack: unknown = reply.json()
  if (typeof ack === 'object' && ack !== null && 'seq' in ack && typeof ack.seq === 'number') return ack.seq
  throw new Error(`prefill of ${subject}: ${reply.string()}`)
}

/** The schedules of each account, as the scheduler decides them. */
function byAccount(all: readonly Schedule[]): Schedule[][] {
  const accounts = new Map<string, Schedule[]>()
  for (const s of all) {
    const own = accounts.get(s.accountId) ?? []
    own.push(s)
    accounts.set(s.accountId, own)
  }
  return [...accounts.values()]
}

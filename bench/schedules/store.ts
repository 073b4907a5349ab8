/** The bench's own connection: accounts, sessions and schedules made through the commands (no HTTP rate limits in the way). */
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import pino from 'pino'
import { activeSchedules, countLiveSchedules } from '../../projections/index.js'
import { connectApp } from '../../src/app-context.js'
import { createAccount } from '../../src/commands/create-account/create-account.js'
import { operator } from '../../src/commands/execute.js'
import { changeSchedule, createSchedule, type ManageSchedulesContext } from '../../src/commands/schedules/manage.js'
import { loadConfig } from '../../src/config.js'
import { EventStoreUnavailableError } from '../../src/infra/nats/event-store.js'
import { seedSession } from '../seed.js'

/** Commands in flight at once. */
const AT_ONCE = 32

export interface BenchStore {
  /** Schedules created so far. */
  readonly created: number
  createSchedules(count: number, cron: string): Promise<void>
  /** Changes the first `count` schedules created to `cron`. */
  changeSome(count: number, cron: string): Promise<void>
  /** Waits until the read model lists `count` active schedules (what the scheduler reads). */
  untilActive(count: number): Promise<void>
  /** MATS_TASKS's bytes now (schedules and tasks share it). */
  streamBytes(): Promise<number>
  stop(): Promise<void>
}

/** Attempts at a command whose append NATS did not answer in time (a loaded machine): one lost answer must not end a run of minutes. */
const ATTEMPTS = 5

/** `command`, again while NATS does not answer: creating or changing a schedule again is harmless (creating one that exists decides nothing). */
async function persistently(command: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await command()
      return
    } catch (err) {
      if (!(err instanceof EventStoreUnavailableError) || attempt >= ATTEMPTS) throw err
    }
  }
}

/** `work(i)` for i < count, AT_ONCE at a time. */
async function inTurns(count: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    for (let i = next++; i < count; i = next++) await work(i)
  }
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, count) }, worker))
}

export async function benchStore(natsUrl: string, mongoUrl: string, accountCount: number): Promise<BenchStore> {
  const infra = await connectApp(loadConfig({ NATS_URL: natsUrl, MONGODB_URL: mongoUrl, SCHEDULES_PER_ACCOUNT: '100000', NATS_TIMEOUT_MS: '5000' }), pino({ level: 'silent' }))
  // No count of the account's schedules before each creation (SCHEDULES_PER_ACCOUNT is 100,000 here): a count on
  // FerretDB reads the collection, and creating 10,000 with it took 1,013 s on the loaded machine. BENCH_COUNT=1 counts.
  const countLive = process.env.BENCH_COUNT ? (accountId: string) => countLiveSchedules(infra.readModels, accountId) : () => Promise.resolve(0)
  const context: ManageSchedulesContext = { ...infra, countLiveSchedules: countLive }
  const accounts: { accountId: string; sessionId: string }[] = []
  for (let i = 0; i < accountCount; i++) {
    const { id: accountId } = await createAccount(infra, { name: `schedules ${i}`, monthlyBudgetUsd: 1_000_000 }, operator())
    accounts.push({ accountId, sessionId: await seedSession(infra, accountId) })
  }
  const schedules: { accountId: string; scheduleId: string }[] = []
  return {
    get created() {
      return schedules.length
    },
    async createSchedules(count, cron) {
      const offset = schedules.length
      await inTurns(count, async (step) => {
        const i = offset + step
        const { accountId, sessionId } = accounts[i % accounts.length]!
        const scheduleId = randomUUID()
        const input = { sessionId, agentType: 'seo' as const, instruction: `Bench schedule ${i}: audit the blog titles`, cron, overlap: 'allow' as const }
        await persistently(() => createSchedule(context, accountId, scheduleId, input, operator()))
        schedules.push({ accountId, scheduleId })
      })
    },
    async changeSome(count, cron) {
      await inTurns(Math.min(count, schedules.length), async (i) => {
        await persistently(() => changeSchedule(context, schedules[i]!, { cron }, operator()))
      })
    },
    async untilActive(count) {
      for (;;) {
        let active = 0
        for await (const _ of activeSchedules(infra.readModels, 1000)) active++
        if (active >= count) return
        await sleep(500)
      }
    },
    async streamBytes() {
      return (await infra.jsm.streams.info('MATS_TASKS')).state.bytes
    },
    stop: () => infra.close(),
  }
}

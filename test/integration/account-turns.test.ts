import { randomUUID } from 'node:crypto'
import type { JsMsg } from '@nats-io/jetstream'
import t from 'tap'
import { AccountTurns } from '../../consumers/worker/account-turns.js'
import { ensureDispatchStream } from '../../src/infra/nats/dispatch-stream.js'
import { accountDispatchConsumer, dispatchMessagesOf } from '../helpers/dispatch.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra, testLog } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

/**
 * What a worker keeps of the accounts it gives turns to (ADR 0052, ADR 0054) is bounded by the
 * accounts served within the durables' idle time, not by every account served since it started.
 */
const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)
await ensureDispatchStream(infra.jsm, 1, false)

const IDLE_MS = 500
const ACCOUNTS = 20

/** A TaskCreated as the log stores it; the turns read only its subject (its account). */
async function aTaskOf(accountId: string): Promise<void> {
  await infra.js.publish(`mats.task.${accountId}.${randomUUID()}.TaskCreated`, '{}')
}

/** Turns whose deliveries are acknowledged at once (the task ended), except the accounts in `running`. */
function turnsKeeping(running: Set<string>, delivered: string[]): AccountTurns {
  const deliver = (msg: JsMsg) => {
    const accountId = msg.subject.split('.')[1] ?? ''
    delivered.push(accountId)
    if (!running.has(accountId)) msg.ack()
    else msg.working()
  }
  return new AccountTurns(
    infra.js,
    infra.jsm,
    30_000,
    deliver,
    () => 0,
    () => undefined,
    testLog(),
    IDLE_MS,
  )
}

t.test(
  'given accounts served once and idle since, when the turns refresh past the idle time, then they are forgotten, except one still waiting; a forgotten one that posts again is served',
  async (t) => {
    const accounts = Array.from({ length: ACCOUNTS }, () => randomUUID())
    const busy = accounts[0]!
    const delivered: string[] = []
    const turns = turnsKeeping(new Set([busy]), delivered)
    t.teardown(() => turns.stop())
    for (const accountId of accounts) await aTaskOf(accountId)
    await until('the server to source them into the dispatch stream', async () => (await infra.jsm.streams.info('MATS_DISPATCH')).state.messages === ACCOUNTS)

    await turns.refresh()
    turns.takeTurns(100)
    await until('every account to be served once', () => delivered.length === ACCOUNTS)
    t.equal(turns.remembered, ACCOUNTS, 'each account served is remembered')

    await until(
      'the idle accounts to be forgotten',
      async () => {
        await turns.refresh()
        return turns.remembered === 1
      },
      30_000,
      100,
    )
    t.equal(await dispatchMessagesOf(infra, busy), 1, 'the account whose task is not acknowledged still has it waiting in the stream')
    t.pass('only the account with a task in the stream is kept')

    const returning = accounts[1]!
    await infra.jsm.consumers.delete('MATS_DISPATCH', `mats-dispatch-${returning}`)
    await aTaskOf(returning)
    await until('the new task to be sourced', async () => (await dispatchMessagesOf(infra, returning)) === 1)
    turns.ring(returning)
    turns.takeTurns(100)
    await until('the returning account to be served again', () => delivered.filter((a) => a === returning).length === 2)
    t.ok(await accountDispatchConsumer(infra, returning), 'its durable, gone meanwhile, is made again')
  },
)

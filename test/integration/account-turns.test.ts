import { randomUUID } from 'node:crypto'
import type { JsMsg } from '@nats-io/jetstream'
import t from 'tap'
import { AccountTurns } from '../../consumers/worker/account-turns.js'
import { dispatchConsumerConfig, ensureDispatchStream } from '../../src/infra/nats/dispatch-stream.js'
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

/**
 * Turns whose deliveries are acknowledged at once (the task ended), except the accounts in
 * `running`, whose tasks keep running; `ownedHere` says whether this worker counts them as its
 * own (otherwise they stand for tasks another worker runs).
 */
function turnsKeeping(running: Set<string>, delivered: string[], ownedHere = false): AccountTurns {
  const deliver = (msg: JsMsg) => {
    const accountId = msg.subject.split('.')[1] ?? ''
    delivered.push(accountId)
    if (!running.has(accountId)) msg.ack()
    else msg.working()
  }
  const here = { heldOf: () => 0, ownedOf: (accountId: string) => (ownedHere && running.has(accountId) ? delivered.filter((a) => a === accountId).length : 0) }
  return new AccountTurns(infra.js, infra.jsm, 30_000, deliver, here, () => undefined, testLog(), IDLE_MS)
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

    // A pull that failed (a durable's creation timed out on a starved machine) ends its turn: its account is rung again.
    // Not by a read, which would forget the accounts served meanwhile and idle past IDLE_MS.
    await until(
      'every account to be served once',
      () => {
        for (const accountId of accounts) if (!delivered.includes(accountId)) turns.ring(accountId)
        turns.takeTurns(100 - turns.asked)
        return delivered.length === ACCOUNTS
      },
      60_000,
      250,
    )
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
    t.equal(await dispatchMessagesOf(infra, busy), 1, 'the account whose task another worker runs still has it in the stream')
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

t.test("given an account's durable made with another ack wait, when it gets a turn, then the durable takes this worker's ack wait and its task is delivered", async (t) => {
  const accountId = randomUUID()
  await infra.jsm.consumers.add('MATS_DISPATCH', dispatchConsumerConfig(accountId, 5000))
  const delivered: string[] = []
  const turns = turnsKeeping(new Set(), delivered)
  t.teardown(() => turns.stop())

  await aTaskOf(accountId)
  await until('the task to be sourced', async () => (await dispatchMessagesOf(infra, accountId)) === 1)
  turns.ring(accountId)
  turns.takeTurns(10)

  await until('its task to be delivered', () => delivered.includes(accountId))
  t.equal((await accountDispatchConsumer(infra, accountId))?.config.ack_wait, 30_000 * 1_000_000, "the ack wait is the worker's")
})

t.test('given an account whose only task runs here, when the turns refresh, then they pull nothing from it; run by another worker, they do', async (t) => {
  for (const ownedHere of [true, false]) {
    // Alone in the stream: what the tests above left there would be pulled as another worker's.
    await infra.jsm.streams.purge('MATS_DISPATCH')
    const accountId = randomUUID()
    const delivered: string[] = []
    const turns = turnsKeeping(new Set([accountId]), delivered, ownedHere)
    t.teardown(() => turns.stop())
    await aTaskOf(accountId)
    await until('the task to be sourced', async () => (await dispatchMessagesOf(infra, accountId)) === 1)
    turns.ring(accountId)
    turns.takeTurns(10)
    await until('its task to be delivered', () => delivered.length === 1)
    await until('the pull to end', () => turns.asked === 0)

    await turns.refresh()
    turns.takeTurns(10)
    t.equal(turns.asked > 0, !ownedHere, ownedHere ? 'no pull: its one message is the task running here' : 'a pull: the message may be a redelivery to take')
    turns.stop()
  }
})

t.test('given two tasks of an account that rang once, when its pull of one ends full, then it gets another turn at once: the second task is pulled with no refresh (ADR 0064)', async (t) => {
  await infra.jsm.streams.purge('MATS_DISPATCH')
  const accountId = randomUUID()
  const delivered: string[] = []
  const deliver = (msg: JsMsg) => {
    delivered.push(msg.subject)
    msg.ack()
  }
  // As the worker's loop does when a pull ends: turns for whatever room there is (one here).
  const turns: AccountTurns = new AccountTurns(infra.js, infra.jsm, 30_000, deliver, { heldOf: () => 0, ownedOf: () => 0 }, () => turns.takeTurns(1 - turns.asked), testLog())
  t.teardown(() => turns.stop())
  await aTaskOf(accountId)
  await aTaskOf(accountId)
  await until('both to be sourced', async () => (await dispatchMessagesOf(infra, accountId)) === 2)

  // When: one ring (the second task was created in the doorbell's quiet time), a turn of one.
  turns.ring(accountId)
  turns.takeTurns(1)

  // Then: never a refresh here, yet both are delivered.
  await until('both tasks to be delivered', () => delivered.length === 2)
  t.same(delivered, [`mats-dispatch.${accountId}`, `mats-dispatch.${accountId}`], "both from the account's durable, the second by the turn after the full pull")
})

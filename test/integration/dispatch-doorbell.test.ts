import t from 'tap'
import { startService } from '../../src/service.js'
import { DispatchDoorbell, DOORBELL_QUIET_MS, dispatchDoorbellSubject } from '../../src/infra/nats/dispatch-doorbell.js'
import { accountDispatchConsumer } from '../helpers/dispatch.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService, testConfig, testLog } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

/**
 * ADR 0064: a task's creation rings the workers' doorbell for its account, at most once per
 * quiet time and process; a worker given a ring takes a turn on that account at once.
 */
t.test('given a doorbell, when an account rings at 0, 10 and 490 ms and again at its quiet time, then it is sent at 0 and at the quiet time, and another account rings on its own', async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api'] })
  const { nc } = service.infra
  const heard: string[] = []
  const listener = nc.subscribe(`${dispatchDoorbellSubject('*')}`, {
    callback: (_err, msg) => {
      heard.push(msg.subject)
    },
  })
  t.teardown(() => listener.unsubscribe())
  let now = 1_000_000
  const doorbell = new DispatchDoorbell(nc, () => now)

  // When
  doorbell.ring('acct-a')
  now += 10
  doorbell.ring('acct-a')
  doorbell.ring('acct-b')
  now += DOORBELL_QUIET_MS - 20
  doorbell.ring('acct-a')
  now += 10
  doorbell.ring('acct-a')
  await nc.flush()

  // Then
  await until('the rings to be heard', () => heard.length >= 3)
  t.same(heard, [dispatchDoorbellSubject('acct-a'), dispatchDoorbellSubject('acct-b'), dispatchDoorbellSubject('acct-a')], 'acct-a rang at 0 and past its quiet time; acct-b once')
})

t.test("given a task created through the API, then its account's doorbell rings", async (t) => {
  const servers = await startServers(t)
  const service = await startTestService(t, servers, { roles: ['api'] })
  const caller = await aCaller(service.infra, service.url)
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  const heard: string[] = []
  const listener = service.infra.nc.subscribe(dispatchDoorbellSubject(caller.account.id), {
    callback: (_err, msg) => {
      heard.push(msg.subject)
    },
  })
  t.teardown(() => listener.unsubscribe())
  await service.infra.nc.flush()

  // When
  const created = await caller.api.post('/v1/tasks', { sessionId, instruction: 'Plan the launch posts' })

  // Then
  t.equal(created.status, 201)
  await until('the doorbell to ring', () => heard.length > 0)
  t.same(heard, [dispatchDoorbellSubject(caller.account.id)], 'one ring, on its account')
})

t.test('given a worker, when an account it never served rings, then it takes a turn on that account (its durable is made)', async (t) => {
  const servers = await startServers(t)
  const service = await startService(testConfig(servers), testLog(), new Set(['worker'] as const))
  t.teardown(() => service.stop())
  const accountId = 'doorbell-only-account'
  t.equal(await accountDispatchConsumer(service.infra, accountId), null, 'no durable before the ring: the account has no task in the dispatch stream')

  // When
  service.infra.nc.publish(dispatchDoorbellSubject(accountId))

  // Then
  const durable = await until('the worker to take a turn on the account', () => accountDispatchConsumer(service.infra, accountId).then((info) => info ?? undefined))
  t.equal(durable.config.filter_subject, `mats-dispatch.${accountId}`, "the account's durable, made by its turn")
})

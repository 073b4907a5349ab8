import t from 'tap'
import { startWebhookReceiver } from '../fakes/webhook-receiver.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { createSchedule, firedOf, patchSchedule, scheduleEvents } from '../helpers/schedules.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { openSse, type SseStream } from '../helpers/sse.js'
import { until } from '../helpers/wait.js'
import { type CreatedWebhook, verified, webhookEnv } from '../helpers/webhooks.js'

/** Deadlines sized for a loaded machine (2 cores shared by many test runs). */
const DEADLINE_MS = 60_000

const servers = await startServers(t)
const service = await startTestService(t, servers, { env: webhookEnv({ SCHEDULER_REFRESH_MS: '200' }) })

async function aCallerWithSession(): Promise<Caller & { sessionId: string }> {
  const caller = await aCaller(service.infra, service.url)
  const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  return { ...caller, sessionId: session.body.session.id }
}

/** A schedule firing every second, a task each tick (overlap allow). */
async function aSchedule(caller: Caller & { sessionId: string }): Promise<string> {
  const created = await createSchedule(caller, { sessionId: caller.sessionId, agentType: 'seo', instruction: 'Audit the blog for broken links', every: '1s', overlap: 'allow' })
  if (created.status !== 201) throw new Error(`schedule not created: ${created.status} ${JSON.stringify(created.body)}`)
  return created.body.schedule.id
}

interface ScheduleDelivery {
  readonly type: string
  readonly data: { scheduleId: string; scheduledFor?: string; taskId?: string }
}

interface FeedEvent {
  readonly type: string
  readonly accountId: string
  readonly aggregateId: string
}

/** Reads a feed until `done` says so (keep-alives skipped), or fails at the deadline. */
async function readFeed(stream: SseStream, into: FeedEvent[], done: (events: FeedEvent[]) => boolean): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS
  while (!done(into)) {
    if (Date.now() > deadline) throw new Error(`timed out with ${JSON.stringify(into.map((e) => e.type))}`)
    const block = await stream.next()
    if (!block) throw new Error(`the feed ended after ${into.length} events`)
    if (block.comment === undefined) into.push(JSON.parse(block.data ?? '{}') as FeedEvent)
  }
}
const has = (id: string, type: string) => (events: FeedEvent[]) => events.some((e) => e.aggregateId === id && e.type === type)

t.test('given a webhook subscribed to schedule.fired, when a schedule ticks, then it receives one signed delivery per tick; default and other accounts’ webhooks none', async (t) => {
  // Given
  const alice = await aCallerWithSession()
  const bob = await aCallerWithSession()
  const [aliceReceiver, defaultReceiver, bobReceiver] = await Promise.all([startWebhookReceiver(t), startWebhookReceiver(t), startWebhookReceiver(t)])
  const aliceHook = await alice.api.post<CreatedWebhook>('/v1/webhooks', { url: aliceReceiver.url, events: ['schedule.fired', 'schedule.tick_skipped'] })
  t.equal(aliceHook.status, 201)
  t.same(aliceHook.body.webhook.events, ['schedule.fired', 'schedule.tick_skipped'])
  const defaultHook = await alice.api.post<CreatedWebhook>('/v1/webhooks', { url: defaultReceiver.url })
  t.same(defaultHook.body.webhook.events, ['task.created', 'task.started', 'task.completed', 'task.failed'], 'the default is unchanged: task events only')
  const bobHook = await bob.api.post<CreatedWebhook>('/v1/webhooks', { url: bobReceiver.url, events: ['schedule.created', 'schedule.fired'] })

  // When
  const aliceSchedule = await aSchedule(alice)
  await until('three of alice’s ticks delivered', () => aliceReceiver.received.length >= 3, DEADLINE_MS)
  t.equal((await alice.api.request('DELETE', `/v1/schedules/${aliceSchedule}`)).status, 204)
  const bobSchedule = await aSchedule(bob)
  await until('bob’s own schedule delivered to bob', () => bobReceiver.received.some((r) => verified<ScheduleDelivery>(bobHook.body.secret, r).data.scheduleId === bobSchedule), DEADLINE_MS)

  // Then: one delivery per ScheduleFired in the log, each verified, each naming its tick and task
  const fired = firedOf(await scheduleEvents(service.infra, alice.account.id, aliceSchedule))
  const deliveries = await until('a delivery for every tick fired', () => aliceReceiver.received.length >= fired.length && aliceReceiver.received, DEADLINE_MS)
  const payloads = deliveries.map((request) => verified<ScheduleDelivery>(aliceHook.body.secret, request))
  t.ok(
    payloads.every((p) => p.type === 'schedule.fired' && p.data.scheduleId === aliceSchedule),
    'only schedule.fired, of alice’s schedule',
  )
  t.same(
    payloads.map((p) => [p.data.scheduledFor, p.data.taskId]).sort(),
    fired.map((e) => [(e.data as { scheduledFor: string }).scheduledFor, (e.data as { taskId: string }).taskId]).sort(),
    'exactly one per tick fired, with its task',
  )
  t.equal(new Set(deliveries.map((r) => r.headers['webhook-id'])).size, deliveries.length, 'each delivery its own webhook-id')
  await until('the default webhook hears of the scheduled tasks', () => defaultReceiver.received.length >= 1, DEADLINE_MS)
  t.notOk(
    defaultReceiver.received.some((r) => verified<ScheduleDelivery>(defaultHook.body.secret, r).type.startsWith('schedule.')),
    'a webhook with the default events gets no schedule event',
  )
  t.notOk(
    bobReceiver.received.some((r) => verified<ScheduleDelivery>(bobHook.body.secret, r).data.scheduleId === aliceSchedule),
    'another account’s webhook gets none of them',
  )
  t.equal((await bob.api.request('DELETE', `/v1/schedules/${bobSchedule}`)).status, 204)
})

t.test('given open account feeds, when a schedule is created, ticks, is paused, resumed and deleted, then its account’s feed shows each event, another account’s none', async (t) => {
  // Given
  const alice = await aCallerWithSession()
  const bob = await aCallerWithSession()
  const aliceFeed = await openSse(`${service.url}/v1/events`, alice.key.key)
  const bobFeed = await openSse(`${service.url}/v1/events`, bob.key.key)
  t.teardown(() => {
    aliceFeed.close()
    bobFeed.close()
  })

  // When
  const id = await aSchedule(alice)
  const aliceEvents: FeedEvent[] = []
  await readFeed(aliceFeed, aliceEvents, (events) => events.filter((e) => e.aggregateId === id && e.type === 'ScheduleFired').length >= 2)
  t.equal((await patchSchedule(alice, id, { paused: true })).status, 200)
  await readFeed(aliceFeed, aliceEvents, has(id, 'SchedulePaused'))
  t.equal((await patchSchedule(alice, id, { paused: false })).status, 200)
  await readFeed(aliceFeed, aliceEvents, has(id, 'ScheduleResumed'))
  t.equal((await alice.api.request('DELETE', `/v1/schedules/${id}`)).status, 204)
  await readFeed(aliceFeed, aliceEvents, has(id, 'ScheduleDeleted'))
  const bobSchedule = await aSchedule(bob)
  const bobEvents: FeedEvent[] = []
  await readFeed(bobFeed, bobEvents, has(bobSchedule, 'ScheduleCreated'))

  // Then
  const ofSchedule = aliceEvents.filter((e) => e.aggregateId === id).map((e) => e.type)
  t.equal(ofSchedule[0], 'ScheduleCreated', 'the feed shows the schedule from its creation')
  for (const type of ['ScheduleFired', 'SchedulePaused', 'ScheduleResumed', 'ScheduleDeleted']) t.ok(ofSchedule.includes(type), `and ${type}`)
  t.ok(
    aliceEvents.some((e) => e.type === 'TaskCreated'),
    'with the tasks its ticks created',
  )
  t.ok(
    bobEvents.every((e) => e.accountId === bob.account.id && e.aggregateId !== id),
    'another account’s feed shows none of them',
  )
  t.equal((await bob.api.request('DELETE', `/v1/schedules/${bobSchedule}`)).status, 204)

  // And a feed resumed from the start reads the same schedule events from the log
  const resumed = await openSse(`${service.url}/v1/events`, alice.key.key, { 'last-event-id': '0' })
  t.teardown(() => resumed.close())
  const replayed: FeedEvent[] = []
  await readFeed(resumed, replayed, has(id, 'ScheduleDeleted'))
  t.same(
    replayed.filter((e) => e.aggregateId === id).map((e) => e.type),
    ofSchedule,
    'the history holds the schedule’s events, in the same order',
  )
  t.ok(
    replayed.every((e) => e.accountId === alice.account.id),
    'only the account’s own',
  )
})

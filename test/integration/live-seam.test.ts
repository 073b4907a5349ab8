import { randomUUID } from 'node:crypto'
import type { Subscription, SubscriptionOptions } from '@nats-io/transport-node'
import t from 'tap'
import { Task } from '../../src/domain/tasks/task.js'
import { followTask, type LiveContext } from '../../src/queries/task-follow.js'
import { endedTaskDrafts } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { taskHistories } from '../helpers/task-log.js'

const servers = await startServers(t)
const service = await startTestService(t, servers, { roles: ['api'] })
const { infra } = service

/** A task of its own account with only its TaskCreated stored; `appendNext` stores TaskStarted, then TaskCompleted. */
async function aPendingTask() {
  const accountId = `acct_${randomUUID().replaceAll('-', '')}`
  const taskId = randomUUID()
  const drafts = endedTaskDrafts(randomUUID(), 'Draft the newsletter')
  const metadata = { correlationId: randomUUID(), causationId: null, keyId: null }
  let stored = 0
  let lastSeq = 0
  const appendNext = async (): Promise<void> => {
    const draft = drafts[stored]
    if (!draft) throw new Error('the task has ended already')
    const [recorded] = await infra.events.append(Task, { accountId, aggregateId: taskId }, [draft], { expectedVersion: lastSeq, metadata, now: new Date() })
    lastSeq = recorded?.seq ?? lastSeq
    stored++
  }
  await appendNext()
  return { accountId, taskId, appendNext }
}

/**
 * The log as the follow reads it, with `hook` run once at one point of its reading: before the
 * stream leader is asked for the task's last sequence, or once the first history batch is
 * answered (the answer is held until the hook's append is stored, then handed to the reader).
 * NATS itself is real; the hook only decides when the test's own append happens.
 */
function logWithHook(at: 'before the leader is asked' | 'after the history is read', hook: () => Promise<void>): Pick<LiveContext, 'nc' | 'jsm'> {
  let fired = false
  const once = async (): Promise<void> => {
    if (fired) return
    fired = true
    await hook()
  }
  if (at === 'before the leader is asked') {
    const streams = wrap(infra.jsm.streams, 'getMessage', async (call) => {
      await once()
      return call()
    })
    return { nc: infra.nc, jsm: wrap(infra.jsm, 'streams', null, streams) }
  }
  // A direct batch's answer comes to a reply inbox (src/infra/nats/direct-batch.ts): its messages wait for the hook.
  const subscribe = (subject: string, opts?: SubscriptionOptions): Subscription => {
    const callback = opts?.callback
    if (!subject.startsWith('_INBOX.') || !callback) return infra.nc.subscribe(subject, opts)
    let handed = Promise.resolve()
    const held = infra.nc.subscribe(subject, {
      ...opts,
      callback: (err, msg) => {
        handed = handed.then(once).then(() => callback(err, msg))
      },
    })
    // Closed (its last message received) only once that message is handed on, as without the hold.
    const closed = held.closed.then(() => handed)
    return wrap(held, 'closed', null, closed)
  }
  return { nc: wrap(infra.nc, 'subscribe', null, subscribe), jsm: infra.jsm }
}

/** `target` with method `name` run through `around`, or property `name` replaced by `value`. */
function wrap<T extends object>(target: T, name: string, around: ((call: () => Promise<unknown>) => Promise<unknown>) | null, value?: unknown): T {
  return new Proxy(target, {
    get(obj, prop) {
      const real: unknown = Reflect.get(obj, prop)
      if (prop === name && around === null) return value
      if (prop === name && around && typeof real === 'function') return (...args: unknown[]) => around(() => real.apply(obj, args))
      return typeof real === 'function' ? real.bind(obj) : real
    },
  })
}

/** Every event the follow gives, history then live, until the task's end. */
async function followToTheEnd(ctx: LiveContext, accountId: string, taskId: string, appendNext: () => Promise<void>): Promise<number[]> {
  const follow = await followTask(ctx, accountId, taskId)
  try {
    const given = follow.history.map((e) => e.seq)
    // The rest of the task happens once the follow is under way.
    void appendNext()
      .then(appendNext, appendNext)
      .catch(() => undefined)
    for await (const event of follow.live(0, AbortSignal.timeout(60_000))) given.push(event.seq)
    return given
  } finally {
    follow.release()
  }
}

for (const at of ['before the leader is asked', 'after the history is read'] as const) {
  t.test(`given a task event stored ${at} (the seam between the log and the live events), then the follow gives every event of the task exactly once, in order`, async (t) => {
    // Given
    const { accountId, taskId, appendNext } = await aPendingTask()
    let seamAppends = 0
    const ctx: LiveContext = {
      ...infra,
      ...logWithHook(at, async () => {
        seamAppends++
        await appendNext()
      }),
    }

    // When
    const given = await followToTheEnd(ctx, accountId, taskId, appendNext)

    // Then
    t.equal(seamAppends, 1, 'one event was stored right at the seam')
    const log = ((await taskHistories(infra)).get(taskId) ?? []).map((e) => e.seq)
    t.equal(log.length, 3, 'created, started, completed in the log')
    t.same(given, log, 'the sequences given are the log exactly: nothing lost, nothing twice')
    t.equal(infra.liveEvents.size, 0, 'the follow left the hub')
  })
}

import { randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import { execute, operator } from '../../src/commands/execute.js'
import { learnSessionFacts } from '../../src/commands/learn-session-facts/learn-session-facts.js'
import { decideCreateSession, Session } from '../../src/domain/sessions/session.js'
import type { AppContext } from '../../src/app-context.js'
import { eventsOf, streamEvents } from './event-log.js'
import type { TestServers } from './servers.js'
import { connectTestInfra } from './service.js'
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js'

const PROFILE = { name: 'S', companyName: null, companyUrl: null, industry: null, targetAudience: null, autonomy: 'approval-required' } as const

export interface SessionKey {
  readonly accountId: string
  readonly aggregateId: string
  readonly sessionId: string
}

/** A new session, as its own command appends it (of an account that need not exist, unless given). */
export async function aSession(infra: AppContext, accountId: string = randomUUID()): Promise<SessionKey> {
  const key = { accountId, aggregateId: randomUUID() }
  await execute(infra, Session, key, (s) => decideCreateSession(PROFILE, s), operator(), { isNew: true })
  return { ...key, sessionId: key.aggregateId }
}

/** A writer with connections of its own, through a proxy the test can pause or cut. */
export async function aProxiedWriter(t: Test, servers: TestServers, env: Record<string, string> = {}): Promise<{ infra: AppContext; proxy: TcpProxy }> {
  const proxy = await startTcpProxy(t, servers.nats.port)
  return { infra: await connectTestInfra(t, { ...servers, natsUrl: `nats://127.0.0.1:${proxy.port}` }, env), proxy }
}

/** Waits for the proxy to hold a message back; an append that ends first never sent it. */
export async function heldBack(held: Promise<void>, appending: Promise<unknown>): Promise<void> {
  const ended = appending.then(
    () => Promise.reject(new Error('the append ended without sending the message the proxy waits for')),
    (err: unknown) => Promise.reject(new Error('the append failed before sending the message the proxy waits for', { cause: err })),
  )
  ended.catch(() => undefined)
  await Promise.race([held, ended])
}

export interface LearningRace {
  /** What each task asked to learn and how many facts its command reported recorded. */
  readonly tasks: readonly { readonly taskId: string; readonly facts: readonly string[]; readonly recorded: number }[]
  /** The session's facts as the log holds them after both, in log order. */
  readonly kept: readonly string[]
}

/**
 * Two tasks of one session end together and learn three facts each: the first task's
 * decision is held back from its second event on (a plain publish per event has stored the
 * first by then; an atomic batch nothing) while the second task's is stored; then it goes on.
 */
export async function twoTasksLearning(reader: AppContext, writer: { infra: AppContext; proxy: TcpProxy }): Promise<LearningRace> {
  const session = await aSession(reader)
  const [a, b] = [randomUUID(), randomUUID()].map((taskId) => ({ taskId, facts: ['Sells model rockets', 'Ships only to North America', 'Has a loyalty program'].map((fact) => `${fact} (${taskId})`) }))
  if (!a || !b) throw new Error('two tasks')
  const held = writer.proxy.holdFrom(a.facts[1] ?? '')
  const learningA = learnSessionFacts(writer.infra, session, a.taskId, a.facts, operator())
  await heldBack(held, learningA)
  const recordedB = await learnSessionFacts(reader, session, b.taskId, b.facts, operator())
  writer.proxy.release()
  const recordedA = await learningA
  const learned = eventsOf(await streamEvents(reader, 'MATS_SESSIONS'), session.sessionId, 'SessionFactLearned')
  return {
    tasks: [
      { ...a, recorded: recordedA },
      { ...b, recorded: recordedB },
    ],
    kept: learned.map((event) => (event.data as { fact: string }).fact),
  }
}

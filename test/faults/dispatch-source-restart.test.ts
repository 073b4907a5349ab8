import { join } from 'node:path'
import t, { type Test } from 'tap'
import { startNats } from '../../src/infra/local/servers.js'
import type { AppContext } from '../../src/app-context.js'
import { advanceDispatchSource, DISPATCH_STREAM, ensureDispatchStream } from '../../src/infra/nats/dispatch-stream.js'
import { ApiClient } from '../helpers/http.js'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers, type TestServers } from '../helpers/servers.js'
import { connectTestInfra, startTestService } from '../helpers/service.js'
import { endedTaskIds } from '../helpers/cluster.js'
import { until } from '../helpers/wait.js'

/**
 * Invariant 9 through a restart (ADR 0068). nats-server resumes the dispatch stream's source
 * after the last message the stream holds, and a work queue whose tasks all ended holds none:
 * it then resumes from the source's start. The workers move that start past what they were
 * delivered; left at 1, a restart sourced every task of the log again, for the workers to
 * judge once more.
 */

const ENV = { OFFLINE_AGENT_LATENCY_MS: '0' }
const TASKS = 20

const aService = (t: Test, servers: TestServers) => startTestService(t, servers, { env: ENV, roles: ['api', 'worker', 'projector'] })

/** Posts `count` tasks and waits until each has ended. */
async function postAndEnd(api: ApiClient, sessionId: string, infra: AppContext, count: number): Promise<void> {
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const res = await api.post<{ task: { id: string } }>('/v1/tasks', { sessionId, instruction: `restart brief ${i} of ${count}, ${Date.now()}` })
    if (res.status !== 201) throw new Error(`POST /v1/tasks answered ${res.status}`)
    ids.push(res.body.task.id)
  }
  // Right after a restart a read may time out: that is a moment to wait, not a result.
  await until(`${count} tasks to end`, async () => {
    const ended = await endedTaskIds(infra).catch(() => new Set<string>())
    return ids.every((id) => ended.has(id))
  })
}

/** Every message the dispatch stream was ever given: how many TaskCreated the server sourced. */
async function sourced(infra: AppContext): Promise<number> {
  return (await until('the dispatch stream', () => infra.jsm.streams.info(DISPATCH_STREAM).catch(() => undefined), 30_000, 200)).state.last_seq
}

async function restartNats(t: Test, servers: TestServers): Promise<void> {
  servers.nats.process.kill('SIGKILL')
  await new Promise((resolve) => servers.nats.process.once('exit', resolve))
  const restarted = await startNats({ dataDir: join(servers.dir, 'nats'), port: servers.nats.port })
  t.teardown(() => restarted.stop())
}

/** A service with an account and a session, which ends TASKS tasks. */
async function withEndedTasks(t: Test, servers: TestServers, infra: AppContext) {
  const service = await aService(t, servers)
  const caller = await aCaller(service.infra, service.url)
  const sessionId = (await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())).body.session.id
  await postAndEnd(caller.api, sessionId, infra, TASKS)
  return { service, key: caller.key.key, sessionId }
}

t.test('given every task ended and the service stopped, when nats-server is killed and started again, then the dispatch stream sources only the task created after', async (t) => {
  const servers = await startServers(t)
  const infra = await connectTestInfra(t, servers)
  const { service, key, sessionId } = await withEndedTasks(t, servers, infra)
  await service.stop()
  const sourcedBefore = await sourced(infra)

  await restartNats(t, servers)
  const after = await aService(t, servers)
  await postAndEnd(new ApiClient(after.url, key), sessionId, infra, 1)

  t.equal((await sourced(infra)) - sourcedBefore, 1, `one TaskCreated sourced after the restart, none of the ${TASKS} that had ended`)
})

t.test('given every task ended under a running worker, when nats-server is killed and started again, then the dispatch stream sources only the task created after', async (t) => {
  const servers = await startServers(t)
  const infra = await connectTestInfra(t, servers)
  const { service, key, sessionId } = await withEndedTasks(t, servers, infra)
  const lastCreated = (await infra.jsm.streams.getMessage('MATS_TASKS', { last_by_subj: 'mats.task.*.*.TaskCreated' }))?.seq ?? Number.POSITIVE_INFINITY
  // The worker moves the source's start on its own, every SOURCE_MARK_EVERY_MS while tasks come.
  await until(
    "the dispatch source's start to pass the last task created",
    async () => ((await infra.jsm.streams.info(DISPATCH_STREAM)).config.sources?.[0]?.opt_start_seq ?? 0) > lastCreated,
    60_000,
    200,
  )
  const sourcedBefore = await sourced(infra)

  await restartNats(t, servers)
  await postAndEnd(new ApiClient(service.url, key), sessionId, infra, 1)

  t.equal((await sourced(infra)) - sourcedBefore, 1, `one TaskCreated sourced after the restart, none of the ${TASKS} that had ended`)
})

t.test('given a dispatch stream whose source starts past the task log (the log restored from an older backup), when a worker opens it, then the source starts at 1 again', async (t) => {
  const servers = await startServers(t)
  const infra = await connectTestInfra(t, servers)
  const opened = await ensureDispatchStream(infra.jsm, 1, false)
  const logEnd = (await infra.jsm.streams.info('MATS_TASKS')).state.last_seq
  t.equal(await advanceDispatchSource(infra.jsm, opened, logEnd + 500), 'moved', 'given a start 500 past the log')

  await ensureDispatchStream(infra.jsm, 1, false)

  t.equal((await infra.jsm.streams.info(DISPATCH_STREAM)).config.sources?.[0]?.opt_start_seq, 1, 'a start past the log would skip the tasks created up to it')
})

t.test('given the dispatch stream deleted and made again, when a worker that opened the old one moves the start, then the new one is left alone', async (t) => {
  const servers = await startServers(t)
  const infra = await connectTestInfra(t, servers)
  const old = await ensureDispatchStream(infra.jsm, 1, false)
  await infra.jsm.streams.delete(DISPATCH_STREAM)
  const made = await ensureDispatchStream(infra.jsm, 1, false)
  t.not(made.created, old.created, 'the new stream is another')

  t.equal(await advanceDispatchSource(infra.jsm, old, 1000), 'another stream', 'the move is refused')

  t.equal((await infra.jsm.streams.info(DISPATCH_STREAM)).config.sources?.[0]?.opt_start_seq, 1, 'its source still starts at 1')
})

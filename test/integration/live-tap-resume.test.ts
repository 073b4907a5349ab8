import { randomUUID } from 'node:crypto'
import t from 'tap'
import { createTask } from '../../src/commands/create-task/create-task.js'
import { operator } from '../../src/commands/execute.js'
import type { RecordedEvent } from '../../src/domain/message.js'
import { aSession } from '../helpers/decisions.js'
import { anAccount } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import { until } from '../helpers/wait.js'

// ADR 0059: a reconnection ends the live-event hub's consumer (its server may be gone); the hub
// follows on from the event after the last it handed over, and the feeds and waits it serves
// are kept, not ended: a wait ended there answered early, and a supervisor's wait for a child
// recorded a child still running as failed.

const servers = await startServers(t)
const proxy = await startTcpProxy(t, servers.nats.port)
const api = await connectTestInfra(t, { ...servers, natsUrl: `nats://127.0.0.1:${proxy.port}` })
const writer = await connectTestInfra(t, servers)

t.test("given an account's live feed, when the process reconnects to NATS and a task is created after, then the feed receives its TaskCreated", async (t) => {
  const { accountId, sessionId } = await aSession(writer, (await anAccount(writer)).id)
  const feed = await api.liveEvents.subscribe(accountId)
  t.teardown(() => feed.release())

  // When
  proxy.cut()
  await until('the API process to see NATS gone', () => !api.link.isUp, 30_000)
  proxy.restore()
  await until('the API process to reconnect', () => api.link.isUp, 60_000)
  const taskId = randomUUID()
  await createTask(writer, accountId, { taskId, sessionId, agentType: 'growth-marketer', instruction: 'After the reconnection', title: null, priority: 'normal' }, operator())

  // Then
  const received = await firstEvent(feed.inbox.events(AbortSignal.timeout(60_000)))
  t.equal(received?.type, 'TaskCreated', 'the feed was kept, and followed on')
  t.equal(received?.aggregateId, taskId)
})

async function firstEvent(events: AsyncGenerator<RecordedEvent>): Promise<RecordedEvent | undefined> {
  for await (const event of events) return event
  return undefined
}

import { randomUUID } from 'node:crypto'
import { connect } from '@nats-io/transport-node'
import t, { type Test } from 'tap'
import { createTask, type CreateTask } from '../../src/commands/create-task/create-task.js'
import { operator } from '../../src/commands/execute.js'
import { startTask } from '../../src/commands/start-task/start-task.js'
import { aSession } from '../helpers/decisions.js'
import { anAccount } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

// A schedule's tick takes no identity entry (ADR 0056), so claiming its task has none to
// remove: no read of the identical-task bucket, no delete. A brief's task still releases its own.

const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)

/** Every message sent to the identical-task bucket or asking it for an entry, as a core subscriber sees them. */
async function bucketTraffic(t: Test): Promise<string[]> {
  const nc = await connect({ servers: servers.natsUrl })
  t.teardown(() => nc.close())
  const seen: string[] = []
  for (const subject of ['$KV.mats_pending_tasks.>', '$JS.API.DIRECT.GET.KV_mats_pending_tasks.>', '$JS.API.DIRECT.GET.KV_mats_pending_tasks', '$JS.API.STREAM.MSG.GET.KV_mats_pending_tasks']) {
    nc.subscribe(subject, {
      callback: (_err, msg) => {
        const operation = msg.headers?.get('KV-Operation') || (subject.startsWith('$KV') ? 'PUT' : 'GET')
        seen.push(`${operation} ${msg.subject}`)
      },
    })
  }
  await nc.flush()
  return seen
}

async function aBrief(tick?: CreateTask['tick']): Promise<{ accountId: string; brief: CreateTask }> {
  const session = await aSession(infra, (await anAccount(infra)).id)
  const brief: CreateTask = {
    taskId: randomUUID(),
    sessionId: session.sessionId,
    agentType: 'growth-marketer',
    instruction: 'The weekly SEO audit',
    title: null,
    priority: 'normal',
    ...(tick ? { tick } : {}),
  }
  return { accountId: session.accountId, brief }
}

t.test("given a tick's task, when a worker claims it, then the identical-task bucket is neither read nor written", async (t) => {
  const { accountId, brief } = await aBrief({ scheduleId: randomUUID(), scheduledFor: new Date().toISOString() })
  const traffic = await bucketTraffic(t)

  await createTask(infra, accountId, brief, operator())
  await startTask(infra, { accountId, taskId: brief.taskId }, 'worker-a', operator())
  // A brief's task claimed after it: its release is the sign that a release would have been seen by now.
  const other = await aBrief()
  await createTask(infra, other.accountId, other.brief, operator())
  await startTask(infra, { accountId: other.accountId, taskId: other.brief.taskId }, 'worker-a', operator())
  await until("the brief's entry released", () => traffic.some((seen) => seen.startsWith('DEL ') || seen.startsWith('PURGE ')))

  t.same(
    traffic.map((seen) => seen.split(' ')[0]),
    ['PUT', 'DEL'],
    `only the brief's entry, taken and released (${traffic.join(', ')})`,
  )
})

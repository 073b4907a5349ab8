import { randomUUID } from 'node:crypto'
import t from 'tap'
import { tasksProjection } from '../../projections/index.js'
import { eventSubjectParts } from '../../src/infra/nats/subjects.js'
import { eventsOf, streamEvents } from '../helpers/event-log.js'
import { aCaller, aSessionBody, type Caller } from '../helpers/mothers.js'
import { cleanPass } from '../helpers/read-models.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { aTaskThatIs } from '../helpers/task-histories.js'
import { until } from '../helpers/wait.js'

interface TaskView {
  id: string
  sessionId: string
  agentType: string
  instruction: string
  status: string
  rerunOf: string | null
  reruns: string[]
}
type Created = { task: TaskView }
type Refused = { error: string; code: string; existingTaskId?: string }

const servers = await startServers(t)
// No worker: a task stays as the test leaves it.
const service = await startTestService(t, servers, { roles: ['api', 'projector'] })
const { infra } = service

async function aCallerWithSession(overrides: { monthlyBudgetUsd?: number } = {}): Promise<Caller & { sessionId: string }> {
  const caller = await aCaller(infra, service.url, overrides)
  const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody())
  return { ...caller, sessionId: session.body.session.id }
}

const rerun = (caller: Caller, taskId: string, headers: Record<string, string> = {}) => caller.api.post<Created & Refused>(`/v1/tasks/${taskId}/rerun`, undefined, headers)
const getTask = async (caller: Caller, taskId: string) => (await caller.api.get<Created>(`/v1/tasks/${taskId}`)).body.task

t.test('given an ended or running task, when it is re-run, then a new pending task repeats it and both are linked', async (t) => {
  const caller = await aCallerWithSession()
  const { sessionId } = caller
  const cancelled = (await caller.api.post<Created>('/v1/tasks', { sessionId, agentType: 'seo', instruction: 'Audit the blog for cannibalised keywords', priority: 'high' })).body.task
  t.equal((await caller.api.post<Created>(`/v1/tasks/${cancelled.id}/cancel`, undefined)).body.task.status, 'failed')
  const originals: Record<string, string> = {
    completed: await aTaskThatIs(infra, caller.account.id, sessionId, 'completed', 'Write the launch newsletter'),
    failed: await aTaskThatIs(infra, caller.account.id, sessionId, 'failed', 'Draft three ad variants'),
    running: await aTaskThatIs(infra, caller.account.id, sessionId, 'running', 'Plan the webinar promotion'),
    cancelled: cancelled.id,
  }

  for (const [status, originalId] of Object.entries(originals)) {
    const original = await getTask(caller, originalId)
    t.equal(original.status, status === 'cancelled' ? 'failed' : status, `the original is ${status}`)

    // When
    const answer = await rerun(caller, originalId)

    // Then
    t.equal(answer.status, 201, `a ${status} task is re-run`)
    const copy = answer.body.task
    t.equal(answer.headers.get('location'), `/v1/tasks/${copy.id}`)
    t.match(copy, { status: 'pending', sessionId, agentType: original.agentType, instruction: original.instruction, rerunOf: originalId, reruns: [] }, `the re-run of the ${status} task repeats it`)
    t.not(copy.id, originalId)
    t.same((await getTask(caller, originalId)).reruns, [copy.id], 'GET of the original lists its re-run at once')
    t.equal((await getTask(caller, copy.id)).rerunOf, originalId, 'GET of the re-run names the original')
  }

  const events = await streamEvents(infra, 'MATS_TASKS')
  const created = events.find((e) => e.type === 'TaskCreated' && (e.data as { rerunOf?: string }).rerunOf === cancelled.id)
  t.match(created?.data, { priority: 'high', agentType: 'seo', title: null }, 'the priority is repeated too')
  const link = events.find((e) => e.type === 'TaskRerunCreated' && e.aggregateId === cancelled.id)
  t.equal(link?.subject, `mats.reruns.${caller.account.id}.${cancelled.id}.TaskRerunCreated`, 'the link is an event of the re-runs of the original')
  t.equal(link?.seq, (created?.seq ?? 0) + 1, 'stored in one atomic batch with the TaskCreated it names')
  t.same(
    eventsOf(events, originals.completed!).map((e) => e.type),
    ['TaskCreated', 'TaskStarted', 'TaskCompleted', 'TaskRerunCreated'],
    'nothing is appended to the ended task itself (invariant 3)',
  )
  t.same(
    eventsOf(events, originals.completed!)
      .filter((e) => eventSubjectParts(e.subject).category === 'task')
      .map((e) => e.type),
    ['TaskCreated', 'TaskStarted', 'TaskCompleted'],
    'its own subjects end with its terminal event',
  )
})

t.test('given a pending task, when it is re-run, then it is the 409 of an identical brief, naming it', async (t) => {
  const caller = await aCallerWithSession()
  const pending = (await caller.api.post<Created>('/v1/tasks', { sessionId: caller.sessionId, instruction: 'Refresh the pricing page copy' })).body.task

  const answer = await rerun(caller, pending.id)

  t.equal(answer.status, 409)
  t.match(answer.body, { code: 'identical_task_pending', existingTaskId: pending.id })
  t.same((await getTask(caller, pending.id)).reruns, [], 'nothing is linked')

  const completed = await aTaskThatIs(infra, caller.account.id, caller.sessionId, 'completed', 'Summarise the quarter for the board')
  const first = await rerun(caller, completed)
  const second = await rerun(caller, completed)
  t.equal(first.status, 201)
  t.match(second, { status: 409, body: { code: 'identical_task_pending', existingTaskId: first.body.task.id } }, 'a second re-run while the first is pending meets it')
})

t.test("given another account's task, when it is re-run, then the answer is the 404 of a task that does not exist", async (t) => {
  const owner = await aCallerWithSession()
  const stranger = await aCallerWithSession()
  const task = (await owner.api.post<Created>('/v1/tasks', { sessionId: owner.sessionId, instruction: 'Write the about page' })).body.task

  const foreign = await rerun(stranger, task.id)
  const missing = await rerun(stranger, randomUUID())

  t.equal(foreign.status, 404)
  t.same(foreign.body, missing.body, 'the same body as for no task at all')
  t.same((await getTask(owner, task.id)).reruns, [], "the owner's task is untouched")
  t.equal((await rerun(stranger, 'not-a-uuid')).status, 400, 'a malformed id is a 400')
})

t.test('given a spent budget, when a task is re-run, then it is a 402 and nothing is linked', async (t) => {
  // $0.01 reserved per task in flight: a budget of $0.01 holds one.
  const caller = await aCallerWithSession({ monthlyBudgetUsd: 0.01 })
  const completed = await aTaskThatIs(infra, caller.account.id, caller.sessionId, 'completed', 'Plan the summer sale')
  t.equal((await caller.api.post('/v1/tasks', { sessionId: caller.sessionId, instruction: 'Something else that holds the budget' })).status, 201)

  const answer = await rerun(caller, completed)

  t.match(answer, { status: 402, body: { code: 'budget_exhausted' } })
  t.same((await getTask(caller, completed)).reruns, [])
})

t.test('given an Idempotency-Key, when a re-run is sent twice, then one task is created and the second answer replays the first', async (t) => {
  const caller = await aCallerWithSession()
  const completed = await aTaskThatIs(infra, caller.account.id, caller.sessionId, 'completed', 'Outline the case study')
  const other = await aTaskThatIs(infra, caller.account.id, caller.sessionId, 'completed', 'Outline the press release')
  const key = { 'idempotency-key': randomUUID() }

  const first = await rerun(caller, completed, key)
  const again = await rerun(caller, completed, key)
  const elsewhere = await rerun(caller, other, key)

  t.equal(first.status, 201)
  t.equal(again.status, 201)
  t.equal(again.headers.get('idempotent-replayed'), 'true')
  t.equal(again.body.task.id, first.body.task.id, 'the same task')
  t.same((await getTask(caller, completed)).reruns, [first.body.task.id], 'one re-run only')
  t.match(elsewhere, { status: 422, body: { code: 'idempotency_key_reused' } }, 'the key on the re-run of another task is another request')
})

t.test('given re-runs, when the read models are rebuilt from the log, then the links are the same as in the live ones (invariant 6)', async (t) => {
  const caller = await aCallerWithSession()
  const completed = await aTaskThatIs(infra, caller.account.id, caller.sessionId, 'completed', 'Draft the onboarding emails')
  const copy = (await rerun(caller, completed)).body.task
  const listed = await until('the list to show both links', async () => {
    const { tasks } = (await caller.api.get<{ tasks: TaskView[] }>('/v1/tasks')).body
    const original = tasks.find((task) => task.id === completed)
    return original?.reruns.length === 1 && tasks
  })
  t.match(
    listed.find((task) => task.id === copy.id),
    { rerunOf: completed, reruns: [] },
    'the list shows rerunOf',
  )
  t.match(
    listed.find((task) => task.id === completed),
    { rerunOf: null, reruns: [copy.id] },
    'and reruns',
  )

  const rebuilt = await cleanPass(infra, `rebuild_${randomUUID().slice(0, 8)}`)

  const live = infra.readModels.collection(tasksProjection)
  const clean = rebuilt.collection(tasksProjection)
  for (const id of [completed, copy.id]) t.same(await clean.findOne({ _id: id }), await live.findOne({ _id: id }), `task ${id}: the rebuilt document is the live one`)
})

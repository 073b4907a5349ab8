import t from 'tap'
import { ConflictError } from '../../src/domain/errors.js'
import { billingMonth, normalizeInstruction, taskFingerprint } from '../../src/domain/tasks/identity.js'
import { decideCreateTask, decideFinishTask, decideStartTask, Task, TaskNotClaimableError, type TaskEvent, type TaskState } from '../../src/domain/tasks/task.js'

const created: Extract<TaskEvent, { type: 'TaskCreated' }>['data'] = {
  sessionId: 's1',
  agentType: 'seo',
  taskType: 'instruction',
  instruction: 'Audit the blog',
  title: null,
  priority: 'normal',
  fingerprint: 'f',
  parentTaskId: null,
  billingMonth: '2026-11',
  reservedMicros: 10_000,
}
const usage = { provider: 'offline', model: 'm', inputTokens: 1, outputTokens: 2 }
const given = (...events: TaskEvent[]): TaskState => events.reduce(Task.evolve, Task.initialState)
const Created: TaskEvent = { type: 'TaskCreated', data: created }
const Started: TaskEvent = { type: 'TaskStarted', data: { workerId: 'w1' } }

t.test('a task is created once', async (t) => {
  t.same(decideCreateTask(created, given()), [Created])
  t.throws(() => decideCreateTask(created, given(Created)), ConflictError)
})

t.test('only a pending task can be claimed, and only once', async (t) => {
  t.same(decideStartTask({ workerId: 'w1' }, given(Created)), [Started])
  t.throws(() => decideStartTask({ workerId: 'w2' }, given(Created, Started)), TaskNotClaimableError)
  t.throws(() => decideStartTask({ workerId: 'w2' }, given()), TaskNotClaimableError)
})

t.test('a running task ends once, carrying its billing month and reservation', async (t) => {
  const [completed] = decideFinishTask({ outcome: 'completed', result: '# done', usage, costMicros: 42, learnedFacts: ['Sells rockets'] }, given(Created, Started))
  t.same(completed, { type: 'TaskCompleted', data: { result: '# done', usage, costMicros: 42, learnedFacts: ['Sells rockets'], billingMonth: '2026-11', reservedMicros: 10_000, agentType: 'seo' } })
  const [failed] = decideFinishTask({ outcome: 'failed', error: 'boom', reason: 'agent_error', usage: null, costMicros: 0 }, given(Created, Started))
  t.equal(failed?.type, 'TaskFailed')
  t.equal(given(Created, Started, completed!).status, 'completed')
  t.throws(
    () => decideFinishTask({ outcome: 'failed', error: 'x', reason: 'worker_lost', usage: null, costMicros: 0 }, given(Created, Started, completed!)),
    ConflictError,
    'no event follows a terminal one',
  )
  t.throws(() => decideFinishTask({ outcome: 'completed', result: 'x', usage, costMicros: 0, learnedFacts: [] }, given(Created)), ConflictError, 'a pending task cannot end unclaimed')
})

t.test('identical briefs: whitespace is normalized, case is not', async (t) => {
  t.equal(normalizeInstruction('  Write\ta  post\n\nabout   rockets '), 'Write a post about rockets')
  t.equal(taskFingerprint('s', 'seo', 'Write a post'), taskFingerprint('s', 'seo', ' Write \n a   post '))
  t.not(taskFingerprint('s', 'seo', 'Write a post'), taskFingerprint('s', 'seo', 'write a post'))
  t.not(taskFingerprint('s', 'seo', 'Write a post'), taskFingerprint('s', 'cro', 'Write a post'))
  t.not(taskFingerprint('s', 'seo', 'Write a post'), taskFingerprint('t', 'seo', 'Write a post'))
  t.equal(taskFingerprint('s', 'seo', 'Cafe\u0301'), taskFingerprint('s', 'seo', 'Caf\u00e9'), 'Unicode NFC')
})

t.test('the billing month is the UTC calendar month', async (t) => {
  t.equal(billingMonth(new Date('2026-11-30T23:59:59.999Z')), '2026-11')
  t.equal(billingMonth(new Date('2026-12-01T00:00:00.000Z')), '2026-12')
})

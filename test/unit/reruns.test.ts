import t from 'tap'
import { NotFoundError } from '../../src/domain/errors.js'
import { decideRecordRerun, decideRerun, TaskReruns, type TaskRerunsEvent } from '../../src/domain/tasks/reruns.js'
import { Task, type TaskEvent, type TaskState } from '../../src/domain/tasks/task.js'

const created: Extract<TaskEvent, { type: 'TaskCreated' }>['data'] = {
  sessionId: 's1',
  agentType: 'seo',
  taskType: 'delegated',
  instruction: 'Audit the blog',
  title: 'Blog audit',
  priority: 'high',
  fingerprint: 'f',
  parentTaskId: 'p1',
  billingMonth: '2026-11',
  reservedMicros: 10_000,
}
const billing = { billingMonth: '2026-11', reservedMicros: 10_000 }
const given = (...events: TaskEvent[]): TaskState => events.reduce(Task.evolve, Task.initialState)
const Created: TaskEvent = { type: 'TaskCreated', data: created }
const Started: TaskEvent = { type: 'TaskStarted', data: { workerId: 'w1' } }
const Failed: TaskEvent = { type: 'TaskFailed', data: { error: 'cancelled before it started', reason: 'cancelled', usage: null, costMicros: 0, ...billing } }
const rerunsAfter = (...events: TaskRerunsEvent[]) => events.reduce(TaskReruns.evolve, TaskReruns.initialState)
const linked = (rerunTaskId: string): TaskRerunsEvent => ({ type: 'TaskRerunCreated', data: { rerunTaskId } })

t.test('a re-run repeats the session, agent, instruction, title and priority of a task in any status, and nothing of its place in a supervision', async (t) => {
  const brief = { sessionId: 's1', agentType: 'seo', instruction: 'Audit the blog', title: 'Blog audit', priority: 'high' }
  for (const state of [given(Created), given(Created, Started), given(Created, Failed), given(Created, Started, Failed)]) t.same(decideRerun(state), brief, state.status)
})

t.test('a task that does not exist (or is another account’s) cannot be re-run', async (t) => {
  t.throws(() => decideRerun(given()), NotFoundError)
})

t.test('the re-runs of a task are recorded once each, in order', async (t) => {
  t.same(decideRecordRerun({ rerunTaskId: 'r1' }, rerunsAfter()), [linked('r1')])
  t.same(decideRecordRerun({ rerunTaskId: 'r1' }, rerunsAfter(linked('r1'))), [], 'a replayed link adds nothing')
  t.same(rerunsAfter(linked('r1'), linked('r2'), linked('r1')).taskIds, ['r1', 'r2'])
})

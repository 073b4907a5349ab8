import t from 'tap'
import { eventSubject, eventSubjectParts } from '../../src/infra/nats/subjects.js'

t.test('given an event subject, when it is read back, then each part is what it was built from', async (t) => {
  const subject = eventSubject('task', 'acc-1', 'task-9', 'TaskCompleted')
  t.equal(subject, 'mats.task.acc-1.task-9.TaskCompleted')
  t.same(eventSubjectParts(subject), { category: 'task', accountId: 'acc-1', aggregateId: 'task-9', type: 'TaskCompleted' })
})

t.test('given subjects short of tokens, then the missing parts read empty, never undefined', async (t) => {
  t.same(eventSubjectParts('mats.schedule.acc-1'), { category: 'schedule', accountId: 'acc-1', aggregateId: '', type: '' })
  t.same(eventSubjectParts('mats'), { category: '', accountId: '', aggregateId: '', type: '' })
})

import t from 'tap'
import { Grants } from '../../src/commands/create-task/grants.js'

t.test('given grants against two spend documents, when some are removed or granted again, then each document counts only its own live grants', async (t) => {
  const grants = new Grants()
  grants.add('task-1', 'acct-a:2026-11', 10)
  grants.add('task-2', 'acct-a:2026-11', 20)
  grants.add('task-3', 'acct-b:2026-11', 5)

  grants.remove('task-1')
  grants.add('task-2', 'acct-a:2026-11', 20)
  grants.remove('task-unknown')

  t.equal(grants.micros('acct-a:2026-11'), 20, 'a removed grant is not counted, one granted again counts once')
  t.equal(grants.micros('acct-b:2026-11'), 5, 'the other document keeps its own')
  grants.remove('task-3')
  t.equal(grants.micros('acct-b:2026-11'), 0, 'none left')
  t.equal(grants.micros('acct-c:2026-11'), 0, 'a document never granted against')
})

import t from 'tap'
import { Action, decideAction, decideExecutionOutcome, type ActionEvent, type ActionState, type RecordedProposal } from '../../src/domain/actions/action.js'
import { ConflictError } from '../../src/domain/errors.js'

const given = (...events: ActionEvent[]): ActionState => events.reduce(Action.evolve, Action.initialState)
const proposal: RecordedProposal = { taskId: 't1', platform: 'linkedin', action: 'publish post', summary: 'Announce the launch', content: 'Hello', status: 'pending_approval' }
const Approved: ActionEvent = { type: 'ActionApproved', data: { taskId: 't1', platform: 'linkedin', action: 'publish post', summary: 'Announce the launch', content: 'Hello', reason: null } }

t.test('an action pending approval is approved with its proposal whole, or rejected with a reason', async (t) => {
  t.same(decideAction({ decision: 'approve', reason: null, proposal }, given()), [Approved])
  t.same(decideAction({ decision: 'reject', reason: 'no', proposal }, given()), [{ type: 'ActionRejected', data: { taskId: 't1', platform: 'linkedin', reason: 'no' } }])
})

t.test('a decision is made once, and only on an action pending approval', async (t) => {
  t.throws(
    () => decideAction({ decision: 'reject', reason: null, proposal }, given(Approved)),
    new ConflictError('action is already approved; only an action pending approval can be approved or rejected', { code: 'action_not_pending' }),
  )
  t.throws(() => decideAction({ decision: 'approve', reason: null, proposal: { ...proposal, status: 'draft' } }, given()), ConflictError)
  t.throws(() => decideAction({ decision: 'approve', reason: null, proposal: { ...proposal, status: 'executed' } }, given()), ConflictError)
})

t.test('a connector outcome is recorded once, only for an approved action', async (t) => {
  const [executed] = decideExecutionOutcome({ reference: 'urn:1' }, given(Approved))
  t.same(executed, { type: 'ActionExecuted', data: { taskId: 't1', platform: 'linkedin', reference: 'urn:1' } })
  t.same(decideExecutionOutcome({ reference: 'urn:2' }, given(Approved, executed!)), [], 'a redelivered approval records nothing')
  t.equal(decideExecutionOutcome({ error: 'refused' }, given(Approved))[0]?.type, 'ActionExecutionFailed')
  t.same(decideExecutionOutcome({ reference: 'urn:1' }, given()), [], 'nothing before an approval')
})

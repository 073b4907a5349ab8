import { Action, decideAction, type ActionEvent, type Decision, type RecordedProposal } from '../../domain/actions/action.js'
import { NotFoundError } from '../../domain/errors.js'
import type { Recorded } from '../../domain/message.js'
import { Task } from '../../domain/tasks/task.js'
import type { CommandContext } from '../context.js'
import { execute, type Issuer } from '../execute.js'

export interface ActionKey {
  readonly accountId: string
  readonly actionId: string
}

/**
 * Approves or rejects an action awaiting approval, as ActionApproved or ActionRejected on the
 * action's own aggregate. The caller names the action's task (the actions read model is the
 * only index from an action id to its task); the proposal itself is read from the task's
 * events, so a decision never rests on a read model's word. Answers the events appended.
 */
export async function decideOnAction(
  infra: CommandContext,
  key: ActionKey,
  taskId: string,
  command: { decision: Decision; reason: string | null },
  issuer: Issuer,
): Promise<readonly Recorded<ActionEvent>[]> {
  const proposal = await proposalOnLog(infra, key, taskId)
  const { appended } = await execute(infra, Action, { accountId: key.accountId, aggregateId: key.actionId }, (state) => decideAction({ ...command, proposal }, state), issuer)
  return appended
}

async function proposalOnLog(infra: CommandContext, key: ActionKey, taskId: string): Promise<RecordedProposal> {
  const { events } = await infra.events.load(Task, { accountId: key.accountId, aggregateId: taskId })
  for (const event of events) {
    if (event.type === 'TaskActionProposed' && event.data.actionId === key.actionId) return { ...event.data, taskId }
  }
  throw new NotFoundError('action not found')
}

import { ConflictError } from '../errors.js'
import type * as schemas from '../events/actions.js'
import type { EventData } from '../events/common.js'
import type { Aggregate, EventDraft } from '../message.js'
import type { ActionStatus, ProposedAction } from './proposed-action.js'

/**
 * What happens to a proposed action after its run: a human's decision, then, for an approved
 * one, the connector's outcome. It is an aggregate of its own (`mats.action.<account>.<actionId>.*`)
 * because the task that proposed it may have ended, and nothing follows a task's terminal
 * event (invariant 3). The proposal itself stays on the task (TaskActionProposed).
 */

/** Carries the approved proposal whole: an integration outside mats can carry it out from this event alone. */
export type ActionApproved = EventDraft<'ActionApproved', EventData<typeof schemas.ActionApprovedData>>
export type ActionRejected = EventDraft<'ActionRejected', EventData<typeof schemas.ActionRejectedData>>
/** The platform's connector made the change; `reference` is the platform's id for it (a post id, say). */
export type ActionExecuted = EventDraft<'ActionExecuted', EventData<typeof schemas.ActionExecutedData>>
/** The connector refused or failed; nothing is retried automatically (as with tasks). */
export type ActionExecutionFailed = EventDraft<'ActionExecutionFailed', EventData<typeof schemas.ActionExecutionFailedData>>
export type ActionEvent = ActionApproved | ActionRejected | ActionExecuted | ActionExecutionFailed

/** Every status an action can have: as proposed (see proposed-action.ts), then as decided and carried out. */
export const ACTION_LIFECYCLE = ['draft', 'pending_approval', 'not_executed', 'executed', 'approved', 'rejected', 'execution_failed'] as const
export type ActionLifecycleStatus = (typeof ACTION_LIFECYCLE)[number]

export type ActionState =
  | { readonly status: 'undecided' }
  | { readonly status: 'approved'; readonly approval: ActionApproved['data'] }
  | { readonly status: 'rejected' | 'executed' | 'execution_failed' }

export const Action: Aggregate<ActionState, ActionEvent> = {
  category: 'action',
  initialState: { status: 'undecided' },
  versions: { ActionApproved: 1, ActionRejected: 1, ActionExecuted: 1, ActionExecutionFailed: 1 },
  evolve(state, event) {
    switch (event.type) {
      case 'ActionApproved':
        return state.status === 'undecided' ? { status: 'approved', approval: event.data } : state
      case 'ActionRejected':
        return state.status === 'undecided' ? { status: 'rejected' } : state
      case 'ActionExecuted':
        return state.status === 'approved' ? { status: 'executed' } : state
      case 'ActionExecutionFailed':
        return state.status === 'approved' ? { status: 'execution_failed' } : state
    }
  },
}

export const DECISIONS = ['approve', 'reject'] as const
export type Decision = (typeof DECISIONS)[number]

/** A proposal as its task recorded it, with the task it belongs to. */
export type RecordedProposal = ProposedAction & { readonly taskId: string; readonly status: ActionStatus }

/** Only an action awaiting approval is decided, and only once: a second decision is a conflict, whichever it is. */
export function decideAction(command: { decision: Decision; reason: string | null; proposal: RecordedProposal }, state: ActionState): ActionEvent[] {
  const { proposal, reason } = command
  if (state.status !== 'undecided') throw new ConflictError(`action is already ${state.status}; only an action pending approval can be approved or rejected`, { code: 'action_not_pending' })
  if (proposal.status !== 'pending_approval') throw new ConflictError(`action is ${proposal.status}; only an action pending approval can be approved or rejected`, { code: 'action_not_pending' })
  const { taskId, platform, action, summary, content } = proposal
  if (command.decision === 'approve') return [{ type: 'ActionApproved', data: { taskId, platform, action, summary, content, reason } }]
  return [{ type: 'ActionRejected', data: { taskId, platform, reason } }]
}

export type ExecutionOutcome = { readonly reference: string } | { readonly error: string }

/** Records a connector's outcome once; a redelivered approval that was already carried out records nothing. */
export function decideExecutionOutcome(outcome: ExecutionOutcome, state: ActionState): ActionEvent[] {
  if (state.status !== 'approved') return []
  const { taskId, platform } = state.approval
  if ('reference' in outcome) return [{ type: 'ActionExecuted', data: { taskId, platform, reference: outcome.reference } }]
  return [{ type: 'ActionExecutionFailed', data: { taskId, platform, error: outcome.error } }]
}

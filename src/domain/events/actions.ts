import { Type } from 'typebox'
import { Nullable, UuidOf } from './common.js'
import { ProposedAction } from './proposed-action.js'

const TaskId = UuidOf('The task that proposed the action.')
const Platform = ProposedAction.platform
const Reason = Nullable(Type.String(), { description: 'Why, when the person deciding gave a reason.' })

/** Carries the approved proposal whole: an integration outside mats can carry it out from this event alone. */
export const ActionApprovedData = Type.Object({ ...ProposedAction, taskId: TaskId, reason: Reason })
export const ActionRejectedData = Type.Object({ taskId: TaskId, platform: Platform, reason: Reason })
export const ActionExecutedData = Type.Object({
  taskId: TaskId,
  platform: Platform,
  reference: Type.String({ description: "The platform's id for the change it made (a post id, say)." }),
})
export const ActionExecutionFailedData = Type.Object({
  taskId: TaskId,
  platform: Platform,
  error: Type.String({ description: 'Why the connector refused or failed; nothing is retried automatically.' }),
})

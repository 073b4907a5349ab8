import { Type, type Static } from 'typebox'
import { ACTION_LIFECYCLE } from '../domain/actions/action.js'
import { DateTime, Nullable, PageQuery, Pagination, Uuid } from './common.js'

export const Action = Type.Object(
  {
    id: Uuid,
    taskId: Uuid,
    platform: Type.String({ description: 'Where the change would happen: linkedin, google-ads, mailchimp, website...' }),
    action: Type.String({ description: 'What kind of change, in a few words: publish post, raise daily budget...' }),
    summary: Type.String({ description: 'One sentence a human can approve or reject' }),
    content: Nullable(Type.String({ description: 'The draft itself (post text, email body, new budget), when there is one' })),
    status: Type.Enum([...ACTION_LIFECYCLE], {
      description:
        'draft: kept as a draft (draft-only session); pending_approval: awaits a decision; not_executed: autonomous, but no connector was reachable; ' +
        "approved: approved, and left to the caller's own integration unless a connector carries it out; rejected; " +
        'executed: a connector made the change; execution_failed: the connector refused or failed (see note)',
    }),
    note: Nullable(Type.String({ description: "Why the session's autonomy left it as it is, or what the platform's connector answered" })),
    reason: Nullable(Type.String({ description: 'The reason given with the decision' })),
    proposedAt: DateTime,
    decidedAt: Nullable(DateTime),
  },
  { title: 'Action' },
)

export const ActionParams = Type.Object(
  { actionId: Type.String({ format: 'uuid', description: 'The action, as GET /v1/tasks/{taskId}/actions or GET /v1/approvals list it' }) },
  { additionalProperties: false },
)

export const DecisionBody = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Recorded with the decision' })) },
  { title: 'DecisionBody', additionalProperties: false },
)
export type DecisionBody = Static<typeof DecisionBody>

export const DecideActionInput = Type.Object(
  {
    actionId: Uuid,
    decision: Type.Enum(['approve', 'reject'], { description: 'approve: the change may be made; reject: it must not' }),
    reason: DecisionBody.properties.reason,
  },
  { additionalProperties: false },
)

export const PendingApprovalsQuery = Type.Object({ ...PageQuery }, { additionalProperties: false })
export type PendingApprovalsQuery = Static<typeof PendingApprovalsQuery>

export const ActionResponse = Type.Object({ action: Action }, { title: 'ActionResponse' })
export const TaskActionsResponse = Type.Object({ actions: Type.Array(Action) }, { title: 'TaskActionsResponse' })
export const PendingApprovalsResponse = Type.Object({ actions: Type.Array(Action), pagination: Pagination }, { title: 'PendingApprovalsResponse' })

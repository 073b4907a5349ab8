import type { Autonomy } from '../sessions/autonomy.js'

/** A change on a live platform that an agent wants made: publish a post, change a budget, send an email. */
export interface ProposedAction {
  /** Where it would happen: `linkedin`, `google-ads`, `mailchimp`, `website`... */
  readonly platform: string
  /** What kind of change, in a few words: `publish post`, `raise daily budget`... */
  readonly action: string
  /** One sentence a human can approve or reject. */
  readonly summary: string
  /** The draft itself (post text, email body, new budget), when there is one. */
  readonly content: string | null
}

/**
 * - `draft`: the session is draft-only; the action is kept as a draft, nobody is asked.
 * - `pending_approval`: it awaits a human's approval before anything changes.
 * - `not_executed`: the session is autonomous, but no connector for the platform is
 *   reachable from this deployment, so nothing was changed.
 * - `executed`: an autonomous session's connector made the change.
 */
export const ACTION_STATUSES = ['draft', 'pending_approval', 'not_executed', 'executed'] as const
export type ActionStatus = (typeof ACTION_STATUSES)[number]

/** What becomes of a proposal under a session's autonomy: only `autonomous` may touch a live platform. */
export function actionStatusFor(autonomy: Autonomy, connectorReachable: boolean): Exclude<ActionStatus, 'executed'> | 'execute' {
  switch (autonomy) {
    case 'draft-only':
      return 'draft'
    case 'approval-required':
      return 'pending_approval'
    case 'autonomous':
      return connectorReachable ? 'execute' : 'not_executed'
  }
}

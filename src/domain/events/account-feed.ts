/**
 * What the account feed (GET /v1/events) carries: its tasks' events and its schedules' (ADR 0048),
 * not the action and re-run records that share their stream (an action's proposal is a task event).
 */
export const ACCOUNT_FEED_CATEGORIES = ['task', 'schedule'] as const

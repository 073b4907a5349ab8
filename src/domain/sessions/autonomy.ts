/**
 * How far a session lets its agents act on live platforms. Agents only ever propose write
 * actions; the autonomy decides what becomes of each proposal (see domain/actions).
 */
export const AUTONOMY_LEVELS = ['draft-only', 'approval-required', 'autonomous'] as const
export type Autonomy = (typeof AUTONOMY_LEVELS)[number]

/** What a session gets when it is created without one, and what sessions from before autonomy existed have. */
export const DEFAULT_AUTONOMY: Autonomy = 'approval-required'

export function isAutonomy(value: string): value is Autonomy {
  return (AUTONOMY_LEVELS as readonly string[]).includes(value)
}

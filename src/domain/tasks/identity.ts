import { createHash } from 'node:crypto'

/**
 * Two tasks are identical when they are in the same session, for the same agent, with
 * the same instruction after normalization: Unicode NFC, surrounding whitespace trimmed,
 * every run of whitespace (spaces, tabs, newlines) made one space. Case, punctuation and
 * the title and priority do not count: "Write a post" and "write a post" differ.
 */
export function normalizeInstruction(instruction: string): string {
  return instruction.normalize('NFC').trim().replace(/\s+/gu, ' ')
}

export function taskFingerprint(sessionId: string, agentType: string, instruction: string): string {
  return createHash('sha256')
    .update(`${sessionId}\n${agentType}\n${normalizeInstruction(instruction)}`)
    .digest('hex')
}

/**
 * A schedule's task is identified by its tick, not its brief: with overlap `allow` a tick
 * creates its task while the previous tick's identical one is still pending (ADR 0039).
 */
export function tickFingerprint(scheduleId: string, scheduledFor: string): string {
  return createHash('sha256').update(`schedule\n${scheduleId}\n${scheduledFor}`).digest('hex')
}

/** The UTC calendar month a task is billed to: `YYYY-MM`. */
export function billingMonth(at: Date): string {
  return at.toISOString().slice(0, 7)
}

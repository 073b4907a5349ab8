import type { TaskKey } from '../../projections/queries/tasks.js'
import { PAGE_MAX } from '../contract/common.js'
import { InvalidInputError } from '../domain/errors.js'

/**
 * The opaque `cursor` of GET /v1/tasks (ADR 0043): the last task of a page (its creation time
 * and id) and the number of the page it leads to, base64url JSON. The next page starts after
 * that task in the newest-first order, so it costs the same at any depth, and tasks created
 * meanwhile neither shift nor repeat it.
 */
export interface TaskCursor {
  readonly after: TaskKey
  readonly page: number
}

export function encodeTaskCursor(cursor: TaskCursor): string {
  return Buffer.from(JSON.stringify({ c: cursor.after.createdAt, i: cursor.after.id, p: cursor.page })).toString('base64url')
}

/** The cursor a page gave; anything else is a 400 naming `cursor`. */
export function decodeTaskCursor(text: string): TaskCursor {
  const value = parsed(text)
  if (typeof value !== 'object' || value === null || !('c' in value) || !('i' in value) || !('p' in value)) throw notACursor()
  const { c, i, p } = value
  if (typeof c !== 'string' || !isInstant(c) || typeof i !== 'string' || i.length === 0 || i.length > 64 || typeof p !== 'number' || !Number.isInteger(p) || p < 2 || p > PAGE_MAX) throw notACursor()
  return { after: { createdAt: c, id: i }, page: p }
}

const notACursor = () => new InvalidInputError('query.cursor: is not a cursor a page of GET /v1/tasks gave')

function parsed(text: string): unknown {
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    return null
  }
}

/** An instant as the read model stores it (UTC, milliseconds): the keyset compares strings. */
const isInstant = (value: string): boolean => {
  const time = Date.parse(value)
  return Number.isFinite(time) && new Date(time).toISOString() === value
}

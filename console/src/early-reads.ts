import { BASE } from './router.js'
import { taskListQuery } from './screens/task-filters.js'

/**
 * The Tasks screen's two reads, started as the document opens /console/tasks, beside the session
 * check: otherwise they wait for its answer and the page's script before them (bench:console:
 * the list was sent 120–190 ms after navigation start). Each is taken once, by the screen's
 * first read of the same path. A read that fails gives nothing: the screen reads again as usual
 * (and a 401 then signs out, which an early read must not do before the session check answers).
 */
const early = new Map<string, Promise<unknown>>()

export function readEarly(): void {
  if (window.location.pathname !== `${BASE}/tasks`) return
  const query = new URLSearchParams(window.location.search)
  for (const path of [`/v1/tasks?${taskListQuery(query)}`, '/v1/tasks/counts']) early.set(path, quietly(path))
}

/** The early read of `path`, if one was started and not taken yet. */
export function takeEarly(path: string): Promise<unknown> | undefined {
  const read = early.get(path)
  early.delete(path)
  return read
}

async function quietly(path: string): Promise<unknown> {
  try {
    const response = await fetch(path, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
    return response.ok ? await response.json() : undefined
  } catch {
    return undefined
  }
}

import { useEffect } from 'preact/hooks'
import { ApiError, api, lastUse } from './api.js'

/** How long after the idle timeout the console asks whether its session has ended. */
const MARGIN_MS = 1000
/** Never ask sooner than this after the last question. */
const SHORTEST_WAIT_MS = 100
/** While another tab keeps the session alive, ask again at most this often. */
const LONGEST_WAIT_MS = 60_000

/**
 * The server ends a session unused for `idleTimeoutMs` (CONSOLE_SESSION_IDLE_MS). A screen with
 * no live feed would only notice at its next request: this asks (a background read, which does
 * not count as use) once the timeout has passed since the console's last request, and calls
 * `onEnded` when the answer is 401.
 */
export function useIdleWatch(idleTimeoutMs: number, onEnded: () => void): void {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const schedule = (afterMs: number) => {
      timer = setTimeout(check, Math.max(afterMs, SHORTEST_WAIT_MS))
    }
    const check = async () => {
      const due = lastUse() + idleTimeoutMs + MARGIN_MS - Date.now()
      if (due > 0) return schedule(due)
      try {
        await api('GET', '/console/api/session', undefined, { background: true })
        schedule(Math.min(idleTimeoutMs, LONGEST_WAIT_MS))
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) onEnded()
        else schedule(Math.min(idleTimeoutMs, LONGEST_WAIT_MS))
      }
    }
    schedule(idleTimeoutMs + MARGIN_MS)
    return () => clearTimeout(timer)
  }, [idleTimeoutMs, onEnded])
  useTypingKeepsAlive(idleTimeoutMs)
}

/**
 * Typing in a form is use of the console though it sends nothing until submitted: a long draft
 * would otherwise meet the idle timeout (ADR 0044). While someone types, the session is read as
 * use (not background) once a third of the timeout has passed since the last use, so at most
 * three requests per timeout, and none while nobody types.
 */
function useTypingKeepsAlive(idleTimeoutMs: number): void {
  useEffect(() => {
    const typed = () => {
      if (Date.now() - lastUse() < idleTimeoutMs / 3) return
      api('GET', '/console/api/session').catch(() => undefined) // an ended session: the idle watch above reports it
    }
    document.addEventListener('input', typed, true)
    return () => document.removeEventListener('input', typed, true)
  }, [idleTimeoutMs])
}

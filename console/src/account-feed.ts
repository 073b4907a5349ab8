import { useEffect, useRef } from 'preact/hooks'

const TYPES = ['TaskCreated', 'TaskStarted', 'TaskActionProposed', 'TaskDelegated', 'TaskCancellationRequested', 'TaskCompleted', 'TaskFailed']
/** Events arriving together (a task's start and end, a burst of creations) cause one reload, not one each. */
const SETTLE_MS = 150
/** After the feed fails for good (e.g. 401 once the session ended), open it again this much later. */
const REOPEN_MS = 3000
/**
 * After a burst, read again this much later (unless another burst comes first): a list waits up
 * to 2 s for the read models to reach the log and is then served as it is, so on a busy service
 * the read a burst causes can miss that burst, and a quiet account sends no next event to fix it.
 */
const TRAILING_READS_MS = [2000, 8000]

/**
 * While `enabled`, follows the account's events (GET /v1/events, Server-Sent Events; the session
 * cookie goes with it) and calls `onChange` after each burst of them, and twice more after the
 * last one (TRAILING_READS_MS), so a list reads its current state again instead of polling. On an error it also calls `onChange`: that read answers 401 when
 * the session has ended, which takes the console back to the sign-in.
 */
export function useAccountFeed(enabled: boolean, onChange: () => void): void {
  const latest = useRef(onChange)
  latest.current = onChange
  useEffect(() => {
    if (!enabled) return
    let source: EventSource | undefined
    let settle: ReturnType<typeof setTimeout> | undefined
    let reopen: ReturnType<typeof setTimeout> | undefined
    let trailing: ReturnType<typeof setTimeout>[] = []
    const fire = () => {
      settle = undefined
      latest.current()
      for (const timer of trailing) clearTimeout(timer)
      trailing = TRAILING_READS_MS.map((ms) => setTimeout(() => latest.current(), ms))
    }
    const changed = () => {
      if (settle === undefined) settle = setTimeout(fire, SETTLE_MS)
    }
    const open = () => {
      source = new EventSource('/v1/events')
      for (const type of TYPES) source.addEventListener(type, changed)
      source.onerror = () => {
        changed()
        if (source?.readyState === EventSource.CLOSED) reopen = setTimeout(open, REOPEN_MS)
      }
    }
    open()
    return () => {
      source?.close()
      clearTimeout(settle)
      clearTimeout(reopen)
      for (const timer of trailing) clearTimeout(timer)
    }
  }, [enabled])
}

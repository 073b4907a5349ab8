import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { get } from './api.js'
import { takeEarly } from './early-reads.js'

export interface Loaded<T> {
  readonly data: T | undefined
  readonly error: string | undefined
  readonly reload: () => void
}

/**
 * GET `path` now, again when it changes, and every `everyMs` when given (a list kept live by
 * polling). The first read of a path is someone's use of the console; reading it again (reload,
 * polling) is a background read that does not keep the session alive.
 */
export function useApi<T>(path: string | null, everyMs?: number): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [tick, setTick] = useState(0)
  const latest = useRef(path)
  latest.current = path
  const reload = useCallback(() => setTick((n) => n + 1), [])

  const loaded = useRef<string | null>(null)

  useEffect(() => {
    if (path === null) return
    let live = true
    // A screen that went away (or asked again) stops its read, retries included.
    const stop = new AbortController()
    const background = loaded.current === path
    loaded.current = path
    const early = background ? undefined : takeEarly(path)
    const read = early ? early.then((value) => (value === undefined ? get<T>(path, { signal: stop.signal }) : (value as T))) : get<T>(path, { background, signal: stop.signal })
    read.then(
      (value) => {
        if (live && latest.current === path) {
          setData(value)
          setError(undefined)
        }
      },
      (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
    )
    return () => {
      live = false
      stop.abort()
    }
  }, [path, tick])

  useEffect(() => {
    if (!everyMs) return
    const timer = setInterval(reload, everyMs)
    return () => clearInterval(timer)
  }, [everyMs, reload])

  return { data, error, reload }
}

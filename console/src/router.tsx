import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'

export const BASE = '/console'

export interface Location {
  readonly path: string
  readonly query: URLSearchParams
}

const current = (): Location => ({ path: window.location.pathname.slice(BASE.length) || '/', query: new URLSearchParams(window.location.search) })
const listeners = new Set<() => void>()

/** Goes to `to` (under /console) without reloading; filters live in the query string so a URL can be shared. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = `${BASE}${to}`
  if (options.replace) window.history.replaceState(null, '', url)
  else window.history.pushState(null, '', url)
  for (const listener of listeners) listener()
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current)
  useEffect(() => {
    const changed = () => setLocation(current())
    listeners.add(changed)
    window.addEventListener('popstate', changed)
    return () => {
      listeners.delete(changed)
      window.removeEventListener('popstate', changed)
    }
  }, [])
  return location
}

/** A real link (it opens in a new tab, the address can be copied) that moves within the app on a plain click. */
export function Link(props: { href: string; children: ComponentChildren; class?: string; 'aria-current'?: 'page' }) {
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    navigate(props.href)
  }
  return (
    <a href={`${BASE}${props.href}`} onClick={onClick} class={props.class} aria-current={props['aria-current']}>
      {props.children}
    </a>
  )
}

import { useCallback, useEffect, useState } from 'preact/hooks'
import { api, setCsrfToken, whenSignedOut } from './api.js'
import { useIdleWatch } from './idle-watch.js'
import { Link, navigate, useLocation } from './router.js'
import { Screen } from './screens/index.js'
import { SignIn } from './screens/sign-in.js'
import type { ConsoleSession } from './types.js'

const SECTIONS = [
  ['/tasks', 'Tasks'],
  ['/tasks/new', 'New task'],
  ['/sessions', 'Sessions'],
  ['/approvals', 'Approvals'],
  ['/webhooks', 'Webhooks'],
  ['/usage', 'Usage'],
  ['/agents', 'Agents'],
] as const

type State = { kind: 'loading' } | { kind: 'signed-out'; notice?: string } | { kind: 'signed-in'; session: ConsoleSession }

export function App() {
  const [state, setState] = useState<State>({ kind: 'loading' })
  const signedIn = (session: ConsoleSession) => {
    setCsrfToken(session.csrfToken)
    setState({ kind: 'signed-in', session })
  }

  const ended = useCallback(() => setState({ kind: 'signed-out', notice: 'Your session has ended: sign in again.' }), [])
  useEffect(() => {
    whenSignedOut(ended)
    api<ConsoleSession>('GET', '/console/api/session').then(signedIn, () => setState({ kind: 'signed-out' }))
  }, [ended])

  if (state.kind === 'loading') return <main aria-busy="true" />
  if (state.kind === 'signed-out')
    return (
      <>
        {state.notice && <p role="status">{state.notice}</p>}
        <SignIn onSignedIn={signedIn} />
      </>
    )
  return <Shell session={state.session} onSignedOut={() => setState({ kind: 'signed-out' })} onEnded={ended} />
}

function Shell(props: { session: ConsoleSession; onSignedOut: () => void; onEnded: () => void }) {
  const location = useLocation()
  useIdleWatch(props.session.idleTimeoutMs, props.onEnded)
  useEffect(() => {
    if (location.path === '/') navigate('/tasks', { replace: true })
  }, [location.path])
  const signOut = async () => {
    await api('DELETE', '/console/api/session').catch(() => undefined)
    setCsrfToken('')
    props.onSignedOut()
  }
  const section = SECTIONS.filter(([href]) => location.path === href || location.path.startsWith(`${href}/`)).at(-1)?.[0]
  return (
    <>
      <header>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <span class="brand">mats</span>
        <nav aria-label="Main">
          <ul>
            {SECTIONS.map(([href, label]) => (
              <li key={href}>
                <Link href={href} {...(section === href ? { 'aria-current': 'page' as const } : {})}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Screen location={location} />
      </main>
    </>
  )
}

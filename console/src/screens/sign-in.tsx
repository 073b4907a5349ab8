import { useState } from 'preact/hooks'
import { api } from '../api.js'
import type { ConsoleSession } from '../types.js'

/** Paste an API key: the server exchanges it for a session cookie; the key is dropped from the page at once. */
export function SignIn(props: { onSignedIn: (session: ConsoleSession) => void }) {
  const [key, setKey] = useState('')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError('')
    try {
      const session = await api<ConsoleSession>('POST', '/console/api/session', { apiKey: key.trim() })
      setKey('')
      props.onSignedIn(session)
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    } finally {
      setBusy(false)
    }
  }

  return (
    <main class="sign-in">
      <h1>mats console</h1>
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input id="api-key" type="password" autoComplete="off" spellcheck={false} required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        <p class="hint">Paste a key of your account (mats_…). It is exchanged for a session cookie and not kept by this page.</p>
        {error && <p role="alert">{error}</p>}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  )
}

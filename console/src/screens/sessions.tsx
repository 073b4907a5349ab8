import { useState } from 'preact/hooks'
import { patch, post } from '../api.js'
import { Link } from '../router.js'
import type { Autonomy, ListTasks, Pagination, Session } from '../types.js'
import { Field, Problem, Status, TableRegion, when } from '../ui/bits.js'
import { useApi } from '../use-api.js'

export function Sessions() {
  const { data, error, reload } = useApi<{ sessions: Session[]; pagination: Pagination }>('/v1/sessions?limit=100')
  return (
    <>
      <h1>Sessions</h1>
      <Problem error={error} />
      {data && (
        <TableRegion label="Sessions">
          <table>
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Company</th>
                <th scope="col">Autonomy</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {data.sessions.map((session) => (
                <tr key={session.id}>
                  <td>
                    <Link href={`/sessions/${session.id}`}>{session.name}</Link>
                  </td>
                  <td data-label="Company">{session.companyName ?? '—'}</td>
                  <td data-label="Autonomy">{session.autonomy}</td>
                  <td data-label="Created">{when(session.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      <NewSession onCreated={reload} />
    </>
  )
}

function NewSession(props: { onCreated: () => void }) {
  const [fields, setFields] = useState({ name: '', companyName: '', industry: '', targetAudience: '' })
  const [error, setError] = useState('')
  const field = (name: keyof typeof fields, label: string, required = false) => (
    <Field id={`session-${name}`} label={label}>
      <input id={`session-${name}`} required={required} value={fields[name]} onInput={(e) => setFields({ ...fields, [name]: e.currentTarget.value })} />
    </Field>
  )
  const submit = async (event: Event) => {
    event.preventDefault()
    setError('')
    const body = Object.fromEntries(Object.entries(fields).filter(([, value]) => value.trim() !== ''))
    try {
      await post('/v1/sessions', body)
      setFields({ name: '', companyName: '', industry: '', targetAudience: '' })
      props.onCreated()
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    }
  }
  return (
    <form class="stack" onSubmit={submit}>
      <h2>New session</h2>
      {field('name', 'Session name', true)}
      {field('companyName', 'Company name')}
      {field('industry', 'Industry')}
      {field('targetAudience', 'Target audience')}
      {error && <p role="alert">{error}</p>}
      <button type="submit">Create session</button>
    </form>
  )
}

export function SessionDetail(props: { id: string }) {
  const session = useApi<{ session: Session }>(`/v1/sessions/${props.id}`)
  const tasks = useApi<ListTasks>(`/v1/tasks?sessionId=${props.id}&limit=25`)
  const s = session.data?.session
  if (!s) return <Problem error={session.error} />
  return (
    <>
      <h1>Session {s.name}</h1>
      <dl class="facts">
        <dt>Company</dt>
        <dd>{s.companyName ?? '—'}</dd>
        <dt>Website</dt>
        <dd>{s.companyUrl ?? '—'}</dd>
        <dt>Industry</dt>
        <dd>{s.industry ?? '—'}</dd>
        <dt>Target audience</dt>
        <dd>{s.targetAudience ?? '—'}</dd>
        <dt>Autonomy</dt>
        <dd id="session-autonomy">{s.autonomy}</dd>
        <dt>Facts learned</dt>
        <dd>{s.factsLearned}</dd>
      </dl>
      <ChangeAutonomy key={s.autonomy} session={s} onSaved={session.reload} />
      <p>
        <Link href={`/tasks/new?sessionId=${s.id}`}>Brief an agent in this session</Link> · <Link href={`/tasks?sessionId=${s.id}`}>All its tasks</Link>
      </p>
      <h2>Recent tasks</h2>
      <ul>
        {tasks.data?.tasks.map((task) => (
          <li key={task.id}>
            <Link href={`/tasks/${task.id}`}>{task.agentType}</Link> <Status status={task.status} /> {when(task.createdAt)}
          </li>
        ))}
      </ul>
    </>
  )
}

const AUTONOMIES: readonly Autonomy[] = ['draft-only', 'approval-required', 'autonomous']

/** PATCH /v1/sessions/{id} { autonomy }: runs started afterwards follow it. */
function ChangeAutonomy(props: { session: Session; onSaved: () => void }) {
  const [autonomy, setAutonomy] = useState<Autonomy>(props.session.autonomy)
  const [error, setError] = useState('')
  const [saving, setSaving] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    setError('')
    setSaving(true)
    try {
      await patch(`/v1/sessions/${props.session.id}`, { autonomy })
      props.onSaved()
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    } finally {
      setSaving(false)
    }
  }
  return (
    <form class="stack" onSubmit={submit}>
      <Field id="change-autonomy" label="Change autonomy">
        <select id="change-autonomy" value={autonomy} onChange={(e) => setAutonomy(AUTONOMIES.find((a) => a === e.currentTarget.value) ?? autonomy)}>
          {AUTONOMIES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </Field>
      <p class="hint">Runs that start afterwards follow it; a running task keeps what it started with.</p>
      {error && <p role="alert">{error}</p>}
      <button type="submit" disabled={saving || autonomy === props.session.autonomy}>
        Save autonomy
      </button>
    </form>
  )
}

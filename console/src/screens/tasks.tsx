import { useState } from 'preact/hooks'
import { Link, navigate } from '../router.js'
import { type ListTasks, TASK_STATUSES } from '../types.js'
import { useApi } from '../use-api.js'
import { Field, Pager, Problem, Status, TableRegion, when } from '../ui/bits.js'

const AGENTS = ['growth-marketer', 'organic-social', 'paid-media', 'seo', 'email-marketing', 'creative', 'web-developer', 'cro', 'influencer-marketing', 'demand-gen']
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** How often the list is asked again in Live mode (the account-wide event feed will replace this). */
const LIVE_EVERY_MS = 3000

/** The account's tasks, newest first; the filters and the page live in the URL. */
export function Tasks(props: { query: URLSearchParams }) {
  const { query } = props
  const [live, setLive] = useState(true)
  const api = new URLSearchParams()
  for (const name of ['status', 'agentType', 'sessionId', 'page']) {
    const value = query.get(name)
    if (value) api.set(name, value)
  }
  api.set('limit', '25')
  const { data, error } = useApi<ListTasks>(`/v1/tasks?${api}`, live ? LIVE_EVERY_MS : undefined)

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(query)
    if (value) next.set(name, value)
    else next.delete(name)
    next.delete('page')
    navigate(`/tasks${next.size ? `?${next}` : ''}`, { replace: true })
  }
  const setPage = (page: number) => {
    const next = new URLSearchParams(query)
    next.set('page', String(page))
    navigate(`/tasks?${next}`)
  }

  return (
    <>
      <h1>Tasks</h1>
      <div class="filters">
        <Field id="filter-status" label="Status">
          <select id="filter-status" value={query.get('status') ?? ''} onChange={(e) => setFilter('status', e.currentTarget.value)}>
            <option value="">Any</option>
            {TASK_STATUSES.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </Field>
        <Field id="filter-agent" label="Agent filter">
          <select id="filter-agent" value={query.get('agentType') ?? ''} onChange={(e) => setFilter('agentType', e.currentTarget.value)}>
            <option value="">Any</option>
            {AGENTS.map((agent) => (
              <option key={agent} value={agent}>
                {agent}
              </option>
            ))}
          </select>
        </Field>
        <label class="check">
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.currentTarget.checked)} />
          Live
        </label>
        <JumpToTask />
      </div>
      {query.get('sessionId') && (
        <p>
          Tasks of session {query.get('sessionId')} ·{' '}
          <button type="button" class="link" onClick={() => setFilter('sessionId', '')}>
            show all sessions
          </button>
        </p>
      )}
      <Problem error={error} />
      {data && (
        <>
          <TableRegion label="Tasks">
            <table>
              <thead>
                <tr>
                  <th scope="col">Task</th>
                  <th scope="col">Status</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {data.tasks.map((task) => (
                  <tr key={task.id}>
                    <td>
                      <Link href={`/tasks/${task.id}`}>{task.instruction ? truncate(task.instruction) : task.id}</Link>
                    </td>
                    <td>
                      <Status status={task.status} />
                    </td>
                    <td>{task.agentType}</td>
                    <td>{when(task.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableRegion>
          {data.tasks.length === 0 && <p>No tasks match.</p>}
          <Pager pagination={data.pagination} onPage={setPage} />
        </>
      )}
    </>
  )
}

function JumpToTask() {
  const [id, setId] = useState('')
  const [error, setError] = useState('')
  const submit = (event: Event) => {
    event.preventDefault()
    if (!UUID.test(id.trim())) return setError('A task id is a UUID')
    navigate(`/tasks/${id.trim().toLowerCase()}`)
  }
  return (
    <form class="jump" onSubmit={submit}>
      <Field id="jump-id" label="Task id">
        <input id="jump-id" value={id} onInput={(e) => setId(e.currentTarget.value)} aria-invalid={error ? true : undefined} />
      </Field>
      <button type="submit">Open</button>
      {error && <span role="alert">{error}</span>}
    </form>
  )
}

const truncate = (text: string) => (text.length > 80 ? `${text.slice(0, 79)}…` : text)

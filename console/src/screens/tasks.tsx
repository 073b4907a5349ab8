import { useState } from 'preact/hooks'
import { Link, navigate } from '../router.js'
import { useAccountFeed } from '../account-feed.js'
import { type ListTasks, TASK_STATUSES, type TaskCounts } from '../types.js'
import { useApi } from '../use-api.js'
import { Field, Pager, Problem, Status, TableRegion, when } from '../ui/bits.js'
import { TaskFilters, taskListQuery } from './task-filters.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The account's tasks, newest first; the filters and the page live in the URL. */
export function Tasks(props: { query: URLSearchParams }) {
  const { query } = props
  const [live, setLive] = useState(true)
  const { data, error, reload } = useApi<ListTasks>(`/v1/tasks?${taskListQuery(query)}`)
  const counts = useApi<{ counts: TaskCounts }>('/v1/tasks/counts')
  useAccountFeed(live, () => {
    reload()
    counts.reload()
  })

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
      {counts.data && <Counts counts={counts.data.counts} />}
      <div class="filters">
        <TaskFilters query={query} setFilter={setFilter} />
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
                    <td data-label="Status">
                      <Status status={task.status} />
                    </td>
                    <td data-label="Agent">{task.agentType}</td>
                    <td data-label="Created">{when(task.createdAt)}</td>
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

/** GET /v1/tasks/counts: the account's tasks by status, whatever the filters. */
function Counts(props: { counts: TaskCounts }) {
  return (
    <ul class="counts" aria-label="Tasks by status">
      {TASK_STATUSES.map((status) => (
        <li key={status}>
          <Status status={status} /> <span class="count">{props.counts[status]}</span>
        </li>
      ))}
      <li>
        all <span class="count">{props.counts.total}</span>
      </li>
    </ul>
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

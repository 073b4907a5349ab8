import { TASK_STATUSES } from '../types.js'
import { Field } from '../ui/bits.js'

const AGENTS = ['growth-marketer', 'organic-social', 'paid-media', 'seo', 'email-marketing', 'creative', 'web-developer', 'cro', 'influencer-marketing', 'demand-gen']
const PRIORITIES = ['low', 'normal', 'high']
const DAY = /^\d{4}-\d{2}-\d{2}$/

/** GET /v1/tasks's query for the URL's filters; created from/to are local days, "to" inclusive (the API's createdTo is exclusive). */
export function taskListQuery(query: URLSearchParams): URLSearchParams {
  const api = new URLSearchParams()
  for (const name of ['status', 'agentType', 'sessionId', 'priority', 'page']) {
    const value = query.get(name)
    if (value) api.set(name, value)
  }
  const from = startOfDay(query.get('createdFrom'), 0)
  const to = startOfDay(query.get('createdTo'), 1)
  if (from) api.set('createdFrom', from)
  if (to) api.set('createdTo', to)
  api.set('limit', '25')
  return api
}

function startOfDay(day: string | null, plusDays: number): string | undefined {
  if (!day || !DAY.test(day)) return undefined
  const at = new Date(`${day}T00:00:00`)
  if (Number.isNaN(at.getTime())) return undefined
  at.setDate(at.getDate() + plusDays)
  return at.toISOString()
}

export function TaskFilters(props: { query: URLSearchParams; setFilter: (name: string, value: string) => void }) {
  const { query, setFilter } = props
  const choice = (name: string, id: string, label: string, values: readonly string[]) => (
    <Field id={id} label={label}>
      <select id={id} value={query.get(name) ?? ''} onChange={(e) => setFilter(name, e.currentTarget.value)}>
        <option value="">Any</option>
        {values.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
    </Field>
  )
  const day = (name: string, id: string, label: string) => (
    <Field id={id} label={label}>
      <input id={id} type="date" value={query.get(name) ?? ''} onChange={(e) => setFilter(name, e.currentTarget.value)} />
    </Field>
  )
  return (
    <>
      {choice('status', 'filter-status', 'Status', TASK_STATUSES)}
      {choice('agentType', 'filter-agent', 'Agent filter', AGENTS)}
      {choice('priority', 'filter-priority', 'Priority filter', PRIORITIES)}
      {day('createdFrom', 'filter-created-from', 'Created from')}
      {day('createdTo', 'filter-created-to', 'Created to')}
    </>
  )
}

import { navigate } from '../router.js'
import type { Usage as UsageData } from '../types.js'
import { dollars, Field, Problem, TableRegion } from '../ui/bits.js'
import { DayChart } from '../ui/day-chart.js'
import { useApi } from '../use-api.js'
import { monthChoices } from './months.js'

type Day = UsageData['byDay'][number]

/** One month's spend (GET /v1/usage?month=) against the budget, by agent and by day: a chart and the same numbers as tables; the month lives in the URL. */
export function Usage(props: { query: URLSearchParams }) {
  const months = monthChoices(new Date())
  const asked = props.query.get('month')
  const month = asked && months.includes(asked) ? asked : months[0]
  const { data, error } = useApi<{ usage: UsageData }>(`/v1/usage?month=${month}`)
  const usage = data?.usage.month === month ? data?.usage : undefined
  const choose = (value: string) => navigate(value === months[0] ? '/usage' : `/usage?month=${value}`, { replace: true })
  return (
    <>
      <h1>Usage</h1>
      <Field id="usage-month" label="Month">
        <select id="usage-month" value={month} onChange={(e) => choose(e.currentTarget.value)}>
          {months.map((m, i) => (
            <option key={m} value={m}>
              {i === 0 ? `${m} (this month)` : m}
            </option>
          ))}
        </select>
      </Field>
      <Problem error={error} />
      {usage && <MonthUsage usage={usage} />}
    </>
  )
}

function MonthUsage(props: { usage: UsageData }) {
  const { usage } = props
  const spendDays = usage.byDay.filter((day) => day.spentUsd > 0 || day.tasks > 0)
  const quiet = usage.byDay.length - spendDays.length
  return (
    <>
      <p>
        {usage.month}: {dollars(usage.spentUsd)} spent of a {dollars(usage.budgetUsd)} budget, {dollars(usage.reservedUsd)} held for running tasks, {dollars(usage.remainingUsd)} left.
      </p>
      <Field id="budget-meter" label="Budget spent">
        <meter id="budget-meter" min={0} max={Math.max(usage.budgetUsd, 0.000001)} value={usage.spentUsd}>
          {dollars(usage.spentUsd)}
        </meter>
      </Field>
      <h2>By day</h2>
      <DayChart days={usage.byDay} />
      {spendDays.length > 0 && <DayTable days={spendDays} />}
      <p class="hint">{spendDays.length === 0 ? 'No spend on any day of this month.' : `${quiet} day${quiet === 1 ? '' : 's'} without spend not listed.`}</p>
      <h2>By agent</h2>
      {usage.byAgent.length > 0 ? (
        <TableRegion label="Spend by agent">
          <table>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Spent</th>
                <th scope="col">Tasks ended</th>
              </tr>
            </thead>
            <tbody>
              {usage.byAgent.map((agent) => (
                <tr key={agent.agentType}>
                  <td>{agent.agentType}</td>
                  <td data-label="Spent">{dollars(agent.spentUsd)}</td>
                  <td data-label="Tasks ended">{agent.tasks}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      ) : (
        <p>No task has ended this month.</p>
      )}
    </>
  )
}

/** Only the days with spend or an ended task: a month of $0.00 rows says nothing. */
function DayTable(props: { days: readonly Day[] }) {
  return (
    <TableRegion label="Spend by day">
      <table>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Spent</th>
            <th scope="col">Tasks ended</th>
          </tr>
        </thead>
        <tbody>
          {props.days.map((day) => (
            <tr key={day.date}>
              <td>{day.date}</td>
              <td data-label="Spent">{dollars(day.spentUsd)}</td>
              <td data-label="Tasks ended">{day.tasks}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  )
}

import type { Usage as UsageData } from '../types.js'
import { dollars, Field, Problem, TableRegion } from '../ui/bits.js'
import { DayChart } from '../ui/day-chart.js'
import { useApi } from '../use-api.js'

/** This month's spend (GET /v1/usage) against the budget, by agent and by day: a chart and the same numbers as tables. */
export function Usage() {
  const { data, error } = useApi<{ usage: UsageData }>('/v1/usage')
  const usage = data?.usage
  return (
    <>
      <h1>Usage</h1>
      <Problem error={error} />
      {usage && (
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
                {usage.byDay.map((day) => (
                  <tr key={day.date}>
                    <td>{day.date}</td>
                    <td>{dollars(day.spentUsd)}</td>
                    <td>{day.tasks}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableRegion>
          <h2>By agent</h2>
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
                    <td>{dollars(agent.spentUsd)}</td>
                    <td>{agent.tasks}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableRegion>
          {usage.byAgent.length === 0 && <p>No task has ended this month.</p>}
        </>
      )}
    </>
  )
}

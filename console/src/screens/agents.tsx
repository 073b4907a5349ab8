import type { Agent } from '../types.js'
import { Problem, TableRegion } from '../ui/bits.js'
import { useApi } from '../use-api.js'

export function Agents() {
  const { data, error } = useApi<{ agents: Agent[] }>('/v1/agents')
  return (
    <>
      <h1>Agents</h1>
      <Problem error={error} />
      {data && (
        <TableRegion label="Agents">
          <table>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Type</th>
                <th scope="col">What it does</th>
                <th scope="col">Subspecialties</th>
              </tr>
            </thead>
            <tbody>
              {data.agents.map((agent) => (
                <tr key={agent.type}>
                  <td>
                    {agent.name}
                    {agent.isSupervisor ? ' (supervisor)' : ''}
                  </td>
                  <td data-label="Type">{agent.type}</td>
                  <td data-label="What it does">{agent.description}</td>
                  <td data-label="Subspecialties">
                    <ul class="inline">
                      {agent.subspecialties.map((subspecialty) => (
                        <li key={subspecialty.id}>{subspecialty.name}</li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
    </>
  )
}

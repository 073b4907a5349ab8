import { Link } from '../router.js'
import type { Action, Pagination } from '../types.js'
import { Problem, when } from '../ui/bits.js'
import { DecideButtons } from '../ui/decide.js'
import { useApi } from '../use-api.js'

/** Every action of the account awaiting a decision, each with its task. */
export function Approvals() {
  const { data, error, reload } = useApi<{ actions: Action[]; pagination: Pagination }>('/v1/approvals?limit=100', 10_000)
  return (
    <>
      <h1>Approvals</h1>
      <Problem error={error} />
      {data?.actions.length === 0 && <p>Nothing awaits a decision.</p>}
      <ul class="actions">
        {data?.actions.map((action) => (
          <li key={action.id}>
            <p>
              <strong>
                {action.platform} · {action.action}
              </strong>
              : {action.summary}
            </p>
            {action.content && <pre class="text">{action.content}</pre>}
            <p class="meta">
              Proposed {when(action.proposedAt)} by task <Link href={`/tasks/${action.taskId}`}>{action.taskId}</Link>
            </p>
            <DecideButtons action={action} onDecided={reload} />
          </li>
        ))}
      </ul>
    </>
  )
}

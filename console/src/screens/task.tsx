import { useEffect, useState } from 'preact/hooks'
import { Link } from '../router.js'
import { type FeedEvent, useTaskFeed } from '../task-feed.js'
import type { Action, Task } from '../types.js'
import { Problem, Status, usd, when } from '../ui/bits.js'
import { Curl } from '../ui/curl.js'
import { DecideButtons } from '../ui/decide.js'
import { useApi } from '../use-api.js'
import { CancelTask, RerunFacts, RerunTask } from './task-buttons.js'
import { Timeline } from './timeline.js'

/** While a task has not ended it is also asked again this often, in case its event feed is cut. */
const REFRESH_MS = 5000

/** One task: its status live (its event feed), timeline, result as text, usage and cost, actions, Cancel. */
export function TaskDetail(props: { id: string }) {
  const events = useTaskFeed(props.id)
  const [ended, setEnded] = useState(false)
  const task = useApi<{ task: Task }>(`/v1/tasks/${props.id}`, ended ? undefined : REFRESH_MS)
  const actions = useApi<{ actions: Action[] }>(`/v1/tasks/${props.id}/actions`)
  const reloadTask = task.reload
  const reloadActions = actions.reload
  const current = task.data?.task

  // Each new event brings the task (and its actions) up to date at once.
  useEffect(() => {
    if (events.length === 0) return
    reloadTask()
    reloadActions()
  }, [events.length, reloadTask, reloadActions])
  useEffect(() => setEnded(current?.status === 'completed' || current?.status === 'failed'), [current?.status])

  if (!current) return task.error ? <Problem error={task.error} /> : <p>Loading…</p>
  const cost = events.find((e) => e.type === 'TaskCompleted' || e.type === 'TaskFailed')
  return (
    <>
      <h1>Task {current.id}</h1>
      <dl class="facts">
        <dt>Status</dt>
        <dd aria-live="polite">
          <Status status={current.status} />
        </dd>
        <dt>Agent</dt>
        <dd>{current.agentType}</dd>
        <dt>Session</dt>
        <dd>
          <Link href={`/sessions/${current.sessionId}`}>{current.sessionId}</Link>
        </dd>
        <dt>Created</dt>
        <dd>{when(current.createdAt)}</dd>
        {current.parentTaskId && (
          <>
            <dt>Parent task</dt>
            <dd>
              <Link href={`/tasks/${current.parentTaskId}`}>{current.parentTaskId}</Link>
            </dd>
          </>
        )}
        <RerunFacts task={current} />
      </dl>
      {current.status === 'pending' || current.status === 'running' ? <CancelTask id={current.id} onCancelled={reloadTask} /> : <RerunTask id={current.id} />}
      <h2>Instruction</h2>
      <p class="text">{current.instruction ?? '—'}</p>
      {current.result !== null && current.result !== undefined && (
        <>
          <h2>Result</h2>
          <pre class="text">{current.result}</pre>
        </>
      )}
      {current.error && (
        <>
          <h2>Error</h2>
          <p class="text">{current.error}</p>
        </>
      )}
      {cost && <Usage event={cost} />}
      <Delegated events={events} />
      <h2>Proposed actions</h2>
      <Problem error={actions.error} />
      {actions.data?.actions.length === 0 && <p>None.</p>}
      <ul class="actions">
        {actions.data?.actions.map((action) => (
          <li key={action.id}>
            <p>
              <strong>
                {action.platform} · {action.action}
              </strong>{' '}
              ({action.status}): {action.summary}
            </p>
            {action.content && <pre class="text">{action.content}</pre>}
            {action.status === 'pending_approval' && <DecideButtons action={action} onDecided={reloadActions} />}
          </li>
        ))}
      </ul>
      <Timeline events={events} />
      <Curl method="GET" path={`/v1/tasks/${current.id}`} />
    </>
  )
}

function Usage(props: { event: FeedEvent }) {
  const usage = props.event.data.usage
  const cost = props.event.data.costMicros
  if (typeof usage !== 'object' || usage === null) return null
  const { model, inputTokens, outputTokens } = usage as Record<string, unknown>
  return (
    <>
      <h2>Usage</h2>
      <dl class="facts">
        <dt>Model</dt>
        <dd>{String(model)}</dd>
        <dt>Tokens</dt>
        <dd>
          {String(inputTokens)} in, {String(outputTokens)} out
        </dd>
        <dt>Cost</dt>
        <dd>{typeof cost === 'number' ? usd(cost) : '—'}</dd>
      </dl>
    </>
  )
}

function Delegated(props: { events: readonly FeedEvent[] }) {
  const children = props.events.filter((e) => e.type === 'TaskDelegated')
  if (children.length === 0) return null
  return (
    <>
      <h2>Delegated tasks</h2>
      <ul>
        {children.map((e) => (
          <li key={e.seq}>
            <Link href={`/tasks/${String(e.data.childTaskId)}`}>{String(e.data.agentType)}</Link>: {String(e.data.instruction ?? '')}
          </li>
        ))}
      </ul>
    </>
  )
}

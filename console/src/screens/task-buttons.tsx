import { useState } from 'preact/hooks'
import { post } from '../api.js'
import { Link, navigate } from '../router.js'
import type { Task } from '../types.js'

const message = (err: unknown) => (err instanceof Error ? err.message : String(err))

/** POST /v1/tasks/{id}/cancel, while the task is pending or running. */
export function CancelTask(props: { id: string; onCancelled: () => void }) {
  const [error, setError] = useState('')
  const cancel = () => post(`/v1/tasks/${props.id}/cancel`).then(props.onCancelled, (err: unknown) => setError(message(err)))
  return (
    <p>
      <button type="button" class="danger" onClick={cancel}>
        Cancel task
      </button>
      {error && <span role="alert">{error}</span>}
    </p>
  )
}

/** POST /v1/tasks/{id}/rerun on an ended task: the same brief again; the new task opens. */
export function RerunTask(props: { id: string }) {
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const rerun = async () => {
    setBusy(true)
    setError('')
    try {
      const { task } = await post<{ task: Task }>(`/v1/tasks/${props.id}/rerun`)
      navigate(`/tasks/${task.id}`)
    } catch (err) {
      setError(message(err))
      setBusy(false)
    }
  }
  return (
    <p>
      <button type="button" onClick={rerun} disabled={busy}>
        Re-run
      </button>
      {error && <span role="alert">{error}</span>}
    </p>
  )
}

/** The task this one re-runs, and its own re-runs, as facts of the task. */
export function RerunFacts(props: { task: Task }) {
  const { rerunOf, reruns } = props.task
  return (
    <>
      {rerunOf && (
        <>
          <dt>Re-run of</dt>
          <dd>
            <Link href={`/tasks/${rerunOf}`}>{rerunOf}</Link>
          </dd>
        </>
      )}
      {reruns && reruns.length > 0 && (
        <>
          <dt>Re-runs</dt>
          <dd>
            <ul class="inline">
              {reruns.map((id) => (
                <li key={id}>
                  <Link href={`/tasks/${id}`}>{id}</Link>
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
    </>
  )
}

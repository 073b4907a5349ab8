import { Link } from '../router.js'
import type { BatchResult, Session } from '../types.js'

/** The sessions to brief at once: one checkbox each (POST /v1/tasks/batch, one body per session). */
export function SessionChoices(props: { sessions: readonly Session[]; chosen: ReadonlySet<string>; onChange: (chosen: Set<string>) => void }) {
  const toggle = (id: string, on: boolean) => {
    const next = new Set(props.chosen)
    if (on) next.add(id)
    else next.delete(id)
    props.onChange(next)
  }
  return (
    <fieldset class="choices">
      <legend>Sessions</legend>
      {props.sessions.map((s) => (
        <label key={s.id} class="check">
          <input type="checkbox" checked={props.chosen.has(s.id)} onChange={(e) => toggle(s.id, e.currentTarget.checked)} />
          {s.name} ({s.companyName ?? s.industry ?? 'no company'})
        </label>
      ))}
    </fieldset>
  )
}

/** One row per body of the batch, in the order sent: the created task's link, or why that one was refused. */
export function BatchResults(props: { results: readonly BatchResult[]; sessions: readonly Session[]; sent: readonly string[] }) {
  const name = (id: string | undefined) => props.sessions.find((s) => s.id === id)?.name ?? id ?? '—'
  return (
    <section aria-label="Batch results" aria-live="polite">
      <h2>Created for {props.sent.length} sessions</h2>
      <ul class="actions">
        {props.results.map((result, i) => (
          <li key={props.sent[i]}>
            <strong>{name(props.sent[i])}</strong>:{' '}
            {'task' in result ? (
              <Link href={`/tasks/${result.task.id}`}>task {result.task.id} created</Link>
            ) : (
              <span class="refused">
                not created ({result.status} {result.code}): {result.error}
              </span>
            )}
          </li>
        ))}
      </ul>
    </section>
  )
}

import type { ComponentChildren } from 'preact'
import type { Pagination, TaskStatus } from '../types.js'

/** A label and its control side by side in the DOM (not nested), so the control's name is the label alone. */
export function Field(props: { id: string; label: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
    </div>
  )
}

export function Status(props: { status: TaskStatus | string }) {
  return <span class={`status status-${props.status}`}>{props.status}</span>
}

/** A wide table scrolls sideways inside its own focusable region on a narrow screen. */
export function TableRegion(props: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1)
    <section class="table-region" aria-label={props.label} tabIndex={0}>
      {props.children}
    </section>
  )
}

export function Pager(props: { pagination: Pagination; onPage: (page: number) => void }) {
  const { page, totalPages, total } = props.pagination
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => props.onPage(page - 1)}>
        Previous page
      </button>
      <span>
        Page {page} of {Math.max(totalPages, 1)} ({total} in all)
      </span>
      <button type="button" disabled={page >= totalPages} onClick={() => props.onPage(page + 1)}>
        Next page
      </button>
    </nav>
  )
}

export function Problem(props: { error: string | undefined }) {
  return props.error ? <p role="alert">{props.error}</p> : null
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—')
export const usd = (micros: number) => `$${(micros / 1_000_000).toFixed(4)}`
/** USD: cents, or hundredths of a cent below a dollar (a month of small runs costs fractions of a cent). */
export const dollars = (usd: number) => `$${usd.toFixed(usd > 0 && usd < 1 ? 4 : 2)}`

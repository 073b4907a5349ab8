import { useState } from 'preact/hooks'
import { post } from '../api.js'
import type { Action } from '../types.js'
import { Field } from './bits.js'
import { Dialog } from './dialog.js'

type Decision = 'approve' | 'reject'

/** Approve / Reject of one proposed action, each confirmed in a dialog (with an optional reason). */
export function DecideButtons(props: { action: Action; onDecided: () => void }) {
  const [open, setOpen] = useState<Decision | null>(null)
  const [reason, setReason] = useState('')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)

  const confirm = async () => {
    if (!open) return
    setBusy(true)
    setError('')
    try {
      await post(`/v1/actions/${props.action.id}/${open}`, reason.trim() ? { reason: reason.trim() } : {})
      setOpen(null)
      props.onDecided()
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    } finally {
      setBusy(false)
    }
  }

  return (
    <div class="buttons">
      <button type="button" onClick={() => setOpen('approve')}>
        Approve
      </button>
      <button type="button" class="secondary" onClick={() => setOpen('reject')}>
        Reject
      </button>
      {open && (
        <Dialog title={open === 'approve' ? 'Approve this action?' : 'Reject this action?'} onClose={() => setOpen(null)}>
          <p>
            {props.action.platform} · {props.action.action}: {props.action.summary}
          </p>
          <Field id={`reason-${props.action.id}`} label="Reason (optional)">
            <input id={`reason-${props.action.id}`} value={reason} maxLength={1000} onInput={(e) => setReason(e.currentTarget.value)} />
          </Field>
          {error && <p role="alert">{error}</p>}
          <div class="buttons">
            <button type="button" onClick={confirm} disabled={busy}>
              Confirm
            </button>
            <button type="button" class="secondary" onClick={() => setOpen(null)}>
              Cancel
            </button>
          </div>
        </Dialog>
      )}
    </div>
  )
}

import { useState } from 'preact/hooks'
import { api, post } from '../api.js'
import type { Delivery, Webhook } from '../types.js'
import { Field, Problem, when } from '../ui/bits.js'
import { Dialog } from '../ui/dialog.js'
import { useApi } from '../use-api.js'

export function Webhooks() {
  const { data, error, reload } = useApi<{ webhooks: Webhook[] }>('/v1/webhooks')
  return (
    <>
      <h1>Webhooks</h1>
      <Problem error={error} />
      {data?.webhooks.length === 0 && <p>No webhooks.</p>}
      <ul class="actions">
        {data?.webhooks.map((webhook) => (
          <WebhookItem key={webhook.id} webhook={webhook} onDeleted={reload} />
        ))}
      </ul>
      <NewWebhook onCreated={reload} />
    </>
  )
}

function WebhookItem(props: { webhook: Webhook; onDeleted: () => void }) {
  const { webhook } = props
  const [confirming, setConfirming] = useState(false)
  const [showDeliveries, setShowDeliveries] = useState(false)
  const remove = () => api('DELETE', `/v1/webhooks/${webhook.id}`).then(props.onDeleted)
  return (
    <li>
      <p>
        <strong>{webhook.url}</strong> · {webhook.events.join(', ')} · created {when(webhook.createdAt)}
        {webhook.pausedUntil ? ` · paused until ${when(webhook.pausedUntil)}` : ''}
      </p>
      <div class="buttons">
        <button type="button" class="secondary" aria-expanded={showDeliveries} onClick={() => setShowDeliveries(!showDeliveries)}>
          Deliveries
        </button>
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          Delete
        </button>
      </div>
      {showDeliveries && <Deliveries id={webhook.id} />}
      {confirming && (
        <Dialog title="Delete this webhook?" onClose={() => setConfirming(false)}>
          <p>{webhook.url} stops receiving events.</p>
          <div class="buttons">
            <button type="button" class="danger" onClick={remove}>
              Confirm
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </Dialog>
      )}
    </li>
  )
}

function Deliveries(props: { id: string }) {
  const { data, error } = useApi<{ deliveries: Delivery[] }>(`/v1/webhooks/${props.id}/deliveries`)
  return (
    <>
      <Problem error={error} />
      {data?.deliveries.length === 0 && <p>No deliveries yet.</p>}
      <ul>
        {data?.deliveries.map((d) => (
          <li key={`${d.webhookMessageId}-${d.attempt}`}>
            {when(d.attemptedAt)} · {d.event} · attempt {d.attempt} · {d.statusCode ?? d.error ?? 'no answer'}
            {d.willRetry ? ' · will retry' : ''}
          </li>
        ))}
      </ul>
    </>
  )
}

function NewWebhook(props: { onCreated: () => void }) {
  const [url, setUrl] = useState('')
  const [secret, setSecret] = useState('')
  const [error, setError] = useState('')
  const submit = async (event: Event) => {
    event.preventDefault()
    setError('')
    try {
      const created = await post<{ secret: string }>('/v1/webhooks', { url })
      setSecret(created.secret)
      setUrl('')
      props.onCreated()
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    }
  }
  return (
    <form class="stack" onSubmit={submit}>
      <h2>New webhook</h2>
      <Field id="webhook-url" label="Webhook URL">
        <input id="webhook-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      </Field>
      {error && <p role="alert">{error}</p>}
      <button type="submit">Create webhook</button>
      {secret && (
        <p role="status">
          Signing secret, shown only now: <code>{secret}</code>
        </p>
      )}
    </form>
  )
}

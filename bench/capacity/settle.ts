/**
 * What the bench asks nats-server's monitoring port (`/jsz`), which is not a NATS client
 * message: whether the service has settled, and how deep the task queue is.
 */
import { DISPATCH_STREAM } from '../../src/infra/nats/dispatch-stream.js'

interface Jsz {
  account_details?: { stream_detail?: { name: string; consumer_detail?: { name: string; num_pending: number; num_ack_pending: number }[] }[] }[]
}

/**
 * Waits for the service to settle: nothing pending or unacknowledged on any consumer of the
 * task stream (the workers' and the projectors'). Used where the bench counts messages.
 */
export async function settled(monitorUrl: string, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const res = await fetch(`${monitorUrl}/jsz?consumers=true`)
    const jsz = (await res.json()) as Jsz
    const consumers = (jsz.account_details ?? []).flatMap((a) => a.stream_detail ?? []).flatMap((s) => s.consumer_detail ?? [])
    if (consumers.every((c) => c.num_pending === 0 && c.num_ack_pending === 0)) return
    if (Date.now() > deadline) throw new Error('the service did not settle')
    await new Promise((r) => setTimeout(r, 100))
  }
}

interface StreamsJsz {
  account_details?: { stream_detail?: { name: string; state: { messages: number; last_seq: number } }[] }[]
}

/**
 * MATS_DISPATCH, the work queue of tasks (ADR 0052): every message it stored (numbered from 1
 * in a new stream) and those it still holds, queued or running unacknowledged.
 */
export async function dispatchQueue(monitorUrl: string): Promise<{ stored: number; held: number }> {
  const res = await fetch(`${monitorUrl}/jsz?streams=true`)
  const jsz = (await res.json()) as StreamsJsz
  const dispatch = (jsz.account_details ?? []).flatMap((a) => a.stream_detail ?? []).find((s) => s.name === DISPATCH_STREAM)
  return { stored: dispatch?.state.last_seq ?? 0, held: dispatch?.state.messages ?? 0 }
}

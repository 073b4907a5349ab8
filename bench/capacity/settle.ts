/**
 * Waits for the service to settle by asking nats-server's monitoring port (`/jsz`), which is
 * not a NATS client message: nothing pending or unacknowledged on any consumer of the task
 * stream (the worker's durable one and the projectors'). Used where the bench counts messages.
 */
interface Jsz {
  account_details?: { stream_detail?: { name: string; consumer_detail?: { name: string; num_pending: number; num_ack_pending: number }[] }[] }[]
}

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

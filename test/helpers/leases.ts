import type { Infra } from '../../src/infra/context.js'

/** The keys of a KV bucket that hold a value now (not deleted or purged); none when the bucket does not exist. */
export async function liveKeys(infra: Infra, bucket: string): Promise<string[]> {
  const stream = `KV_${bucket}`
  const info = await infra.jsm.streams.info(stream, { subjects_filter: '>' }).catch(() => null)
  const live: string[] = []
  for (const subject of Object.keys(info?.state.subjects ?? {})) {
    const msg = await infra.jsm.streams.getMessage(stream, { last_by_subj: subject })
    // A put has no KV-Operation header; a delete or purge says so.
    if (msg && (msg.header?.get('KV-Operation') ?? '') === '') live.push(subject.slice(`$KV.${bucket}.`.length))
  }
  return live
}

/** Where projector processes hold their partition leases (projections/engine/leases.ts). */
export const PROJECTOR_LEASES = 'mats_projector_leases'
/** Where each worker process keeps its heartbeat (src/infra/nats/worker-heartbeats.ts). */
export const WORKER_HEARTBEATS = 'mats_workers'
/** Where webhooks processes hold a lease per delivery attempt in flight (src/infra/nats/webhook-leases.ts). */
export const WEBHOOK_LEASES = 'mats_webhook_leases'
/** Where scheduler processes hold their partitions of the schedules (consumers/schedules/owned-partitions.ts). */
export const SCHEDULER_LEASES = 'mats_scheduler_leases'

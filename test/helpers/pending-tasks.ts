import { Kvm } from '@nats-io/kv'
import type { AppContext } from '../../src/app-context.js'

/** Keys of the identical-task bucket (ADR 0011) that still hold a task (a PUT); released ones end in a delete marker. */
export async function identityEntriesHeld(infra: AppContext): Promise<number> {
  const root = '$KV.mats_pending_tasks.'
  const info = await infra.jsm.streams.info('KV_mats_pending_tasks', { subjects_filter: `${root}>` })
  const kv = await new Kvm(infra.js).open('mats_pending_tasks')
  const entries = await Promise.all(Object.keys(info.state.subjects ?? {}).map((subject) => kv.get(subject.slice(root.length))))
  return entries.filter((entry) => entry?.operation === 'PUT').length
}

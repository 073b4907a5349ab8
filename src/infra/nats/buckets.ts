import type { JetStreamClient } from '@nats-io/jetstream'
import { Kvm, type KV, type KvOptions } from '@nats-io/kv'
import { errors as nats } from '@nats-io/transport-node'
import { provisioned } from './provisioning.js'

/**
 * Opens a KV bucket, creating it only when missing, so an existing bucket's settings stand.
 * A lookup or creation that timed out is asked again (provisioning.ts): a timeout says
 * nothing about whether the bucket exists.
 */
export async function openBucket(js: JetStreamClient, name: string, options: Partial<KvOptions>): Promise<KV> {
  const kvm = new Kvm(js)
  return provisioned(`open KV bucket ${name}`, async () => {
    try {
      const kv = await kvm.open(name)
      // open() only binds: status() is what asks the server whether the bucket exists.
      await kv.status()
      return kv
    } catch (err) {
      if (err instanceof nats.TimeoutError) throw err
      return kvm.create(name, options)
    }
  })
}

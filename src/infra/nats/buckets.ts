import type { JetStreamClient } from '@nats-io/jetstream'
import { Kvm, type KV, type KvOptions } from '@nats-io/kv'

/** Opens a KV bucket, creating it only when missing, so an existing bucket's settings stand. */
export async function openBucket(js: JetStreamClient, name: string, options: Partial<KvOptions>): Promise<KV> {
  const kvm = new Kvm(js)
  try {
    const kv = await kvm.open(name)
    // open() only binds: status() is what asks the server whether the bucket exists.
    await kv.status()
    return kv
  } catch {
    return kvm.create(name, options)
  }
}

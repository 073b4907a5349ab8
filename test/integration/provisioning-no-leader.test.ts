import { jetstream, jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import t from 'tap'
import { provisioned } from '../../src/infra/nats/provisioning.js'
import { startServers } from '../helpers/servers.js'

// A 3-node cluster starting under load: a worker's first heartbeat went to its just-made R3
// bucket before the bucket's stream had a leader; nobody answered the publish, which nats.js
// throws as JetStreamNotEnabled, and the worker's start failed. Such a write is asked again.

t.test('given a publish that no stream answers yet, when it is provisioned, then it is asked again and stored once the stream is there', async (t) => {
  const servers = await startServers(t)
  const nc = await connect({ servers: servers.natsUrl })
  t.teardown(() => nc.close())
  const jsm = await jetstreamManager(nc)
  const js = jetstream(nc, { timeout: 2_000 })
  const unanswered: string[] = []

  // When: the first publish meets no stream; the stream comes while it waits to ask again
  const write = provisioned('write the first heartbeat', () => js.publish('later.beat', 'alive'), {
    onRetry: () => {
      unanswered.push('no stream')
      if (unanswered.length === 1) void jsm.streams.add({ name: 'LATER', subjects: ['later.>'] })
    },
  })

  // Then
  const ack = await write
  t.equal(ack.stream, 'LATER', 'stored once the stream answered')
  t.ok(unanswered.length >= 1, `asked again after no stream answered (${unanswered.length} times)`)
  t.equal((await jsm.streams.info('LATER')).state.messages, 1, 'stored once')
})

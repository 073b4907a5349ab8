import { headers as natsHeaders } from '@nats-io/transport-node'
import t from 'tap'
import { linksTo } from '../../src/infra/tracing/spans.js'

/**
 * A projector's batch span links to the spans that appended its events, read from each message's
 * `traceparent`. With tracing off (no propagator registered: this process starts no SDK), no
 * header can carry a context: a message's headers, which nats.js parses on first access, must not
 * be read at all. (With tracing on, test/integration/tracing.test.ts checks the links themselves.)
 */

/** A stored message whose headers count how often they are read. */
function aMessageWithHeaders(reads: { count: number }) {
  const headers = natsHeaders()
  headers.set('Nats-Msg-Id', 'event-1')
  headers.set('traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')
  return {
    get headers() {
      reads.count++
      return headers
    },
  }
}

t.test('given tracing is off, when a batch links to its messages, then no link is made and no header is read', async (t) => {
  const reads = { count: 0 }
  const links = linksTo([aMessageWithHeaders(reads), aMessageWithHeaders(reads), { headers: undefined }])
  t.same(links, [])
  t.equal(reads.count, 0, 'no message header parsed')
})

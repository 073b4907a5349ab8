import t from 'tap'
import { metricsAccess } from '../../src/infra/metrics/access.js'

const TOKEN = 'scrape-me-0123456789'
const from = (peerAddress: string, relayed = false, authorization?: string) => ({ peerAddress, relayed, authorization })

t.test('given no token, on the API port, then loopback peers not relayed by a proxy are served, others refused', async (t) => {
  for (const peer of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) t.equal(metricsAccess(from(peer), undefined, false), 'allowed', `${peer}: allowed`)
  for (const peer of ['10.0.0.5', '192.168.1.2', '2001:db8::1', '::ffff:10.0.0.5']) t.equal(metricsAccess(from(peer), undefined, false), 'local_only', `${peer}: local only`)
  t.equal(metricsAccess(from('127.0.0.1', true), undefined, false), 'local_only', 'a proxy on this machine does not make its clients local')
})

t.test('given no token, on a port of its own, then anyone who reaches it is served', async (t) => {
  t.equal(metricsAccess(from('10.0.0.5'), undefined, true), 'allowed')
})

t.test('given a token, then only its bearer is served, from anywhere, on either port', async (t) => {
  for (const ownPort of [false, true]) {
    t.equal(metricsAccess(from('10.0.0.5', true, `Bearer ${TOKEN}`), TOKEN, ownPort), 'allowed')
    t.equal(metricsAccess(from('10.0.0.5', false, `bearer ${TOKEN}`), TOKEN, ownPort), 'allowed', 'the scheme is case-insensitive')
    t.equal(metricsAccess(from('127.0.0.1'), TOKEN, ownPort), 'token_required', 'loopback needs it too')
    t.equal(metricsAccess(from('127.0.0.1', false, `Bearer ${TOKEN}x`), TOKEN, ownPort), 'token_required')
    t.equal(metricsAccess(from('127.0.0.1', false, TOKEN), TOKEN, ownPort), 'token_required', 'without the Bearer scheme')
  }
})

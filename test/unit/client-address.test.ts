import t from 'tap'
import { clientSubject, trustProxySetting } from '../../src/http/client-address.js'

t.test('given IPv4 addresses, then each is its own subject, mapped into IPv6 or not', async (t) => {
  t.equal(clientSubject('203.0.113.7'), 'ip:203.0.113.7')
  t.equal(clientSubject('::ffff:203.0.113.7'), 'ip:203.0.113.7', 'an IPv4-mapped address is the IPv4 address')
  t.not(clientSubject('203.0.113.7'), clientSubject('203.0.113.8'))
})

t.test('given IPv6 addresses, then they count by their /64, however they are written', async (t) => {
  t.equal(clientSubject('2001:db8:1:2::1'), 'ip6:2001:db8:1:2::/64')
  t.equal(clientSubject('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), 'ip6:2001:db8:1:2::/64', 'leading zeros and the interface part do not matter')
  t.equal(clientSubject('2001:db8:1:2:aaaa::7%eth0'), 'ip6:2001:db8:1:2::/64', 'nor a zone')
  t.equal(clientSubject('2001:db8::1'), 'ip6:2001:db8:0:0::/64', 'a compressed prefix is expanded')
  t.equal(clientSubject('::1'), 'ip6:0:0:0:0::/64')
  t.equal(clientSubject('fe80::1:2:3:4'), 'ip6:fe80:0:0:0::/64')
  t.equal(clientSubject('64:ff9b::192.0.2.33'), 'ip6:64:ff9b:0:0::/64', 'an embedded IPv4 tail lies past the prefix')
  t.not(clientSubject('2001:db8:1:2::1'), clientSubject('2001:db8:1:3::1'), 'the next /64 is another client')
})

t.test('given TRUST_PROXY values, then fastify gets false, true, a hop counter or a list', async (t) => {
  t.equal(trustProxySetting('false'), false)
  t.equal(trustProxySetting(''), false)
  t.equal(trustProxySetting('true'), true)
  t.same(trustProxySetting('10.0.0.0/8, loopback'), ['10.0.0.0/8', 'loopback'])
  const twoHops = trustProxySetting('2')
  if (typeof twoHops !== 'function') return void t.fail('a hop count is a function')
  t.same(
    [0, 1, 2, 3].map((hop) => twoHops('198.51.100.1', hop)),
    [true, true, false, false],
    'the last two hops are trusted, whatever their address',
  )
})

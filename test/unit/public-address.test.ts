import t from 'tap'
import { AddressNotAllowedError, hostOf, isPublicAddress, publicAddressesOf } from '../../src/infra/net/public-address.js'

/** [address, why it is not public]: every form of issue 18, then the usual ranges. */
const NOT_PUBLIC: readonly (readonly [string, string])[] = [
  ['::7f00:1', 'IPv4-compatible loopback ([::127.0.0.1] as the URL parser writes it)'],
  ['::a00:1', 'IPv4-compatible 10.0.0.1'],
  ['::808:808', 'IPv4-compatible, even of a public IPv4 address (deprecated form)'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback in hex ([::ffff:127.0.0.1] as the URL parser writes it)'],
  ['::ffff:0:0', 'IPv4-mapped 0.0.0.0'],
  ['64:ff9b:1::a00:1', 'local-use NAT64 64:ff9b:1::/48'],
  ['64:ff9b:1:ffff::808:808', 'local-use NAT64, whatever it embeds'],
  ['64:ff9b::7f00:1', 'well-known NAT64 of 127.0.0.1'],
  ['64:ff9b::a9fe:a9fe', 'well-known NAT64 of 169.254.169.254'],
  ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
  ['2002:808:808::1', '6to4 (deprecated), even of a public IPv4 address'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo 2001::/32'],
  ['2001::1', 'Teredo 2001::/32'],
  ['fec0::1', 'site-local fec0::/10 (deprecated)'],
  ['192.88.99.1', '6to4 relay anycast 192.88.99.0/24'],
  ['::ffff:0:7f00:1', 'IPv4-translated ::ffff:0:0:0/96'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback /8'],
  ['10.0.0.1', 'RFC 1918'],
  ['172.16.5.4', 'RFC 1918'],
  ['172.31.255.255', 'RFC 1918'],
  ['192.168.1.1', 'RFC 1918'],
  ['169.254.169.254', 'link-local, cloud metadata'],
  ['100.64.0.1', 'CGNAT 100.64/10'],
  ['100.127.255.254', 'CGNAT 100.64/10'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'this network 0/8'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved 240/4'],
  ['192.0.0.8', 'IETF protocol assignments 192.0.0.0/24'],
  ['192.0.2.1', 'documentation TEST-NET-1'],
  ['198.51.100.7', 'documentation TEST-NET-2'],
  ['203.0.113.9', 'documentation TEST-NET-3'],
  ['198.18.0.1', 'benchmarking 198.18/15'],
  ['::1', 'IPv6 loopback'],
  ['::', 'IPv6 unspecified'],
  ['fc00::1', 'unique local fc00::/7'],
  ['fd12:3456::1', 'unique local fc00::/7'],
  ['fe80::1', 'link-local fe80::/10'],
  ['febf::1', 'link-local fe80::/10'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'documentation 2001:db8::/32'],
  ['2001:2::1', 'benchmarking 2001:2::/48'],
  ['100::1', 'discard 100::/64'],
  ['3fff::1', 'documentation 3fff::/20'],
  ['4000::1', 'outside global unicast 2000::/3'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback, dotted'],
  ['::ffff:10.1.2.3', 'IPv4-mapped RFC 1918'],
  ['::ffff:172.16.0.1', 'IPv4-mapped RFC 1918'],
  ['::ffff:192.168.0.1', 'IPv4-mapped RFC 1918'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
  ['::ffff:100.64.0.1', 'IPv4-mapped CGNAT'],
  ['::ffff:224.0.0.1', 'IPv4-mapped multicast'],
  ['::ffff:0.0.0.0', 'IPv4-mapped unspecified'],
  ['::ffff:192.0.2.1', 'IPv4-mapped documentation'],
  ['not-an-ip', 'not an address'],
  ['0x7f.1', 'not a canonical literal'],
]

const PUBLIC = ['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::808:808']

t.test('only global unicast addresses are public, IPv4 ones inside IPv6 judged by the IPv4 address', async (t) => {
  for (const [address, why] of NOT_PUBLIC) t.notOk(isPublicAddress(address), `${address}: ${why}`)
  for (const address of PUBLIC) t.ok(isPublicAddress(address), `${address} is public`)
})

t.test('IPv6 literals in URLs are refused in the form the URL parser gives them', async (t) => {
  for (const url of [
    'http://[::127.0.0.1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[64:ff9b:1::10.0.0.1]/',
    'http://[2002:7f00:1::1]/',
    'http://[fec0::1]/',
    'http://192.88.99.1/',
    'http://0x7f.1/',
    'http://2130706433/',
  ]) {
    const host = hostOf(new URL(url))
    t.notOk(isPublicAddress(host), `${url} (${host})`)
    await t.rejects(publicAddressesOf(host, false), AddressNotAllowedError)
  }
})

t.test('a refusal names the host asked for but never what it resolved to', async (t) => {
  const refused = await publicAddressesOf('localhost', false).then(
    () => null,
    (err: unknown) => err,
  )
  t.type(refused, AddressNotAllowedError)
  const message = refused instanceof Error ? refused.message : ''
  t.match(message, /^localhost resolves to an address that is not public/)
  t.notOk(/127\.0\.0\.1|::1/.test(message), `no address in "${message}"`)
  t.ok((await publicAddressesOf('localhost', true)).length > 0, 'allowed when the operator allows private addresses')
})

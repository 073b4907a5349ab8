import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

/**
 * Whether a webhook may reach `address` when the operator does not allow private ones:
 * only global unicast, as ipaddr.js classifies it (`range() === 'unicast'`, which leaves out
 * loopback, private, link-local with cloud metadata at 169.254.169.254, shared 100.64/10,
 * multicast, documentation, benchmarking and reserved ranges). Otherwise a caller could make
 * the service send requests into its own network (SSRF).
 *
 * IPv6 must also lie in 2000::/3, the global unicast space, which shuts out the deprecated
 * IPv4-compatible form (`[::127.0.0.1]` parses as `::7f00:1`) and whatever ipaddr.js has no
 * name for. An IPv6 address that carries an IPv4 one in its last 32 bits in a fixed place,
 * IPv4-mapped (::ffff:0:0/96, where a dual-stack socket connects to that IPv4 address) and
 * the well-known NAT64 prefix (64:ff9b::/96, which a NAT64 gateway translates to it), is
 * judged by that IPv4 address. Every other transition form is refused: 64:ff9b:1::/48 (its
 * layout is the operator's choice), 6to4 2002::/16, Teredo 2001::/32, ::ffff:0:0:0/96 (ADR 0028).
 */
export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 0) return false
  const parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast'
  const v6 = parsed as ipaddr.IPv6
  const embedded = embeddedIpv4(v6)
  if (embedded) return embedded.range() === 'unicast'
  return v6.match(GLOBAL_UNICAST) && v6.range() === 'unicast'
}

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3')
const EMBEDDING_IN_LAST_32_BITS = [ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), ipaddr.IPv6.parseCIDR('64:ff9b::/96')]

function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (!EMBEDDING_IN_LAST_32_BITS.some((prefix) => address.match(prefix))) return null
  return new ipaddr.IPv4(address.toByteArray().slice(12))
}

export class AddressNotAllowedError extends Error {
  override readonly name = 'AddressNotAllowedError'
}

/** A URL's host without the brackets of an IPv6 literal. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1')
}

/**
 * Every address `host` resolves to, each checked: one private address among public ones
 * is enough to refuse, since the connection might pick it. Throws AddressNotAllowedError,
 * whose message never names what the host resolved to: that would tell a caller what
 * addresses the service's network has behind a name (the caller's own literal is echoed).
 */
export async function publicAddressesOf(host: string, allowPrivate: boolean): Promise<{ address: string; family: number }[]> {
  const literal = isIP(host) !== 0
  const addresses = literal ? [{ address: host, family: isIP(host) }] : await resolveAll(host)
  if (addresses.length === 0) throw new AddressNotAllowedError(`${host} has no address`)
  if (!allowPrivate && addresses.some(({ address }) => !isPublicAddress(address))) {
    throw new AddressNotAllowedError(
      literal ? `${host} is not a public address (loopback, private, link-local or reserved)` : `${host} resolves to an address that is not public (loopback, private, link-local or reserved)`,
    )
  }
  return addresses
}

async function resolveAll(host: string): Promise<{ address: string; family: number }[]> {
  try {
    return await lookup(host, { all: true, verbatim: true })
  } catch (err) {
    throw new AddressNotAllowedError(`${host} does not resolve (${err instanceof Error && 'code' in err ? String(err.code) : 'lookup failed'})`)
  }
}

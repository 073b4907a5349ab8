import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'

/**
 * Addresses a webhook must not reach unless the operator allows it: loopback, private,
 * link-local (cloud metadata at 169.254.169.254), shared, multicast and reserved ranges.
 * Otherwise a caller could make the service send requests into its own network (SSRF).
 */
const NOT_PUBLIC = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
  ['100::', 64],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6')

const MAPPED_IPV4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i

export function isPublicAddress(address: string): boolean {
  const mapped = MAPPED_IPV4.exec(address)?.[1]
  if (mapped) return isPublicAddress(mapped)
  const family = isIP(address)
  if (family === 0) return false
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6')
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
 * is enough to refuse, since the connection might pick it. Throws AddressNotAllowedError.
 */
export async function publicAddressesOf(host: string, allowPrivate: boolean): Promise<{ address: string; family: number }[]> {
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolveAll(host)
  if (addresses.length === 0) throw new AddressNotAllowedError(`${host} has no address`)
  if (!allowPrivate) {
    const blocked = addresses.find(({ address }) => !isPublicAddress(address))
    if (blocked) throw new AddressNotAllowedError(blocked.address === host ? `${host} is a loopback or private address` : `${host} resolves to ${blocked.address}, a loopback or private address`)
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

import { isIP, isIPv4 } from 'node:net'

/**
 * Who a request comes from, for the limits kept per client address (failed authentications,
 * GET /v1/openapi.json, /v1/docs): `request.ip`, which honours `X-Forwarded-For` only from
 * the proxies TRUST_PROXY names, reduced to what one client holds.
 */

/** The names proxy-addr (under fastify's `trustProxy`) knows for address ranges. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

export type TrustProxy = boolean | string[] | ((address: string, hop: number) => boolean)

/**
 * TRUST_PROXY as fastify's `trustProxy`: `false` (the default: the peer is the client),
 * `true` (trust every hop: only behind a proxy that sets X-Forwarded-For itself), a hop count
 * (the last n hops are proxies, whatever their address) or a comma-separated list of addresses,
 * CIDR ranges and the names loopback, linklocal, uniquelocal.
 */
export function trustProxySetting(value: string): TrustProxy {
  const text = value.trim()
  if (text === '' || text === 'false') return false
  if (text === 'true') return true
  // Fastify ignores a bare number (it cannot check the peer); counting hops is what the operator asked for.
  if (/^\d+$/.test(text)) {
    const hops = Number(text)
    return (_address, hop) => hop < hops
  }
  return listOf(text)
}

/** What is wrong with a TRUST_PROXY value, for the boot-time config check. */
export function trustProxyProblems(value: string): string[] {
  const text = value.trim()
  if (text === '' || text === 'true' || text === 'false' || /^\d+$/.test(text)) return []
  const bad = listOf(text).filter((entry) => !isTrustEntry(entry))
  return bad.length === 0 ? [] : [`TRUST_PROXY: ${bad.map((entry) => JSON.stringify(entry)).join(', ')} is not an address, CIDR range or one of loopback, linklocal, uniquelocal`]
}

function listOf(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
}

function isTrustEntry(entry: string): boolean {
  if (RANGE_NAMES.has(entry) || isIP(entry) !== 0) return true
  const [address = '', bits, ...rest] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || bits === undefined || rest.length > 0 || !/^\d{1,3}$/.test(bits)) return false
  return Number(bits) <= (family === 4 ? 32 : 128)
}

/**
 * The subject a per-address limit counts: an IPv4 address as it is (an IPv4-mapped IPv6
 * address too), an IPv6 address by its /64, the block one subscriber (one home, one VM)
 * usually holds whole: otherwise each of its 2^64 addresses would have a quota of its own.
 */
export function clientSubject(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1]
  if (mapped) return `ip:${mapped}`
  if (isIPv4(ip) || isIP(ip) === 0) return `ip:${ip}`
  return `ip6:${ipv6Prefix64(ip)}::/64`
}

/** The first four groups of an IPv6 address, written in full (`2001:db8:0:0`). */
function ipv6Prefix64(ip: string): string {
  const address = ip.split('%')[0] ?? ip
  const [head = '', tail] = address.split('::')
  const groups = (part: string | undefined) => (part ? part.split(':') : [])
  const before = groups(head)
  const after = groups(tail)
  // An IPv4 tail (::1.2.3.4) takes two groups, but lies past the first four whatever it holds.
  const afterCount = after.reduce((count, group) => count + (group.includes('.') ? 2 : 1), 0)
  const full = tail === undefined ? before : [...before, ...Array<string>(8 - before.length - afterCount).fill('0'), ...after]
  return full
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')
}

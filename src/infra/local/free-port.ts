import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

/** Where the chosen ports start: above the well-known and most registered ports. */
const LOWEST = 10_000
/** Where they end at the most: below Kubernetes' NodePort range (30000-32767). */
const HIGHEST = 29_999
/** Where the kernel's ephemeral range starts by default, when /proc cannot be read. */
const DEFAULT_EPHEMERAL_LOW = 32_768
const ATTEMPTS = 100

/** Handed out by this process: two quick asks never get the same port. */
const handedOut = new Set<number>()

/**
 * A loopback port nothing listens on, for a server about to be started on it. Chosen below
 * the kernel's ephemeral range (net.ipv4.ip_local_port_range): the port of a bind to 0 comes
 * from that range, and so does the local port of every outgoing connection, so any client
 * connecting anywhere could take it before the server binds it (a nats-server of a test
 * cluster once failed to start so, on a busy CI machine).
 */
export async function freePort(): Promise<number> {
  const highest = Math.min(HIGHEST, ephemeralLow() - 1)
  const room = highest - LOWEST + 1
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    // Where no range below the ephemeral one is left, the kernel chooses (as before).
    const port = room >= 1000 ? LOWEST + Math.floor(Math.random() * room) : await ephemeralPort()
    if (handedOut.has(port)) continue
    // Marked before the check, so that an ask running beside this one cannot pick it too.
    handedOut.add(port)
    if (await canListen(port)) return port
    handedOut.delete(port)
  }
  throw new Error(`no free loopback port found in ${ATTEMPTS} tries`)
}

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    return Number.isSafeInteger(low) && low > 0 ? low : DEFAULT_EPHEMERAL_LOW
  } catch {
    return DEFAULT_EPHEMERAL_LOW
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((answer) => {
    const server = createServer()
    server.unref()
    server.once('error', () => answer(false))
    server.listen(port, '127.0.0.1', () => server.close(() => answer(true)))
  })
}

/** The kernel's choice. */
function ephemeralPort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolvePort(port))
    })
  })
}

import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import t from 'tap'
import { freePort } from '../../src/infra/local/servers.js'

const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number)

function listen(port: number): Promise<() => Promise<void>> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve(() => new Promise((closed) => server.close(() => closed()))))
  })
}

t.test('given many quick asks, when ports are handed out, then each is distinct, below the ephemeral range and free to listen on', async (t) => {
  const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()))
  t.equal(new Set(ports).size, ports.length, 'no port is handed out twice')
  t.same(
    ports.filter((port) => port >= (ephemeralLow ?? 32_768)),
    [],
    `every port is below ${ephemeralLow}, where outgoing connections take their local ports`,
  )
  const closers = await Promise.all(ports.map(listen))
  await Promise.all(closers.map((close) => close()))
})

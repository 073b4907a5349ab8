import { createConnection, createServer, type Socket } from 'node:net'
import type { Test } from 'tap'

/**
 * A TCP proxy on a random loopback port in front of a real server, which a test can cut:
 * every connection through it is dropped and new ones are refused until it is restored. It
 * cuts one client process off (a worker) while the server and everyone else go on.
 */
export interface TcpProxy {
  readonly port: number
  cut(): void
  restore(): void
}

export async function startTcpProxy(t: Test, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let open = true
  const server = createServer((client) => {
    if (!open) return void client.destroy()
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort })
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => undefined)
    }
    client.pipe(upstream).pipe(client)
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of sockets) socket.destroy()
    server.close()
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port')
  return {
    port: address.port,
    cut: () => {
      open = false
      for (const socket of sockets) socket.destroy()
    },
    restore: () => {
      open = true
    },
  }
}

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
  /**
   * Holds back what clients send from the next NATS message (`PUB`/`HPUB`) that contains
   * `marker` on, once: what came before it reaches the server, that message and everything
   * after wait until `release()` (or are dropped by `cut()`). Resolves when a message was held.
   */
  holdFrom(marker: string): Promise<void>
  /** Holds back everything clients send from now on, any protocol, until `release()`: a server that stopped answering. */
  holdAll(): void
  release(): void
}

interface Held {
  readonly upstream: Socket
  readonly bytes: Buffer
}

export async function startTcpProxy(t: Test, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let open = true
  let armed: { marker: string; onHeld: () => void } | null = null
  let held: Held[] | null = null

  /** Client to server, byte for byte unless a hold is armed or on. */
  const forward = (upstream: Socket, chunk: Buffer): void => {
    if (held) return void held.push({ upstream, bytes: chunk })
    const at = armed ? chunk.indexOf(armed.marker) : -1
    if (!armed || at < 0) return void upstream.write(chunk)
    const from = messageStart(chunk, at)
    upstream.write(chunk.subarray(0, from))
    held = [{ upstream, bytes: chunk.subarray(from) }]
    const { onHeld } = armed
    armed = null
    onHeld()
  }

  const server = createServer((client) => {
    if (!open) return void client.destroy()
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort })
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => undefined)
    }
    client.on('data', (chunk: Buffer) => forward(upstream, chunk))
    upstream.pipe(client)
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
      held = null
      for (const socket of sockets) socket.destroy()
    },
    restore: () => {
      open = true
    },
    holdFrom: (marker) =>
      new Promise<void>((resolve) => {
        armed = { marker, onHeld: resolve }
      }),
    holdAll: () => {
      armed = null
      held = held ?? []
    },
    release: () => {
      const toSend = held ?? []
      held = null
      for (const { upstream, bytes } of toSend) if (!upstream.destroyed) upstream.write(bytes)
    },
  }
}

/** Where the protocol line of the message holding byte `at` begins (`HPUB ...` or `PUB ...`). */
function messageStart(chunk: Buffer, at: number): number {
  const pub = chunk.lastIndexOf('PUB ', at)
  if (pub < 0) return 0
  return pub > 0 && chunk[pub - 1] === 'H'.charCodeAt(0) ? pub - 1 : pub
}

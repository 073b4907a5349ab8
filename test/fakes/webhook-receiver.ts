import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

/** One POST as the receiver saw it. */
export interface Received {
  readonly headers: Record<string, string>
  readonly body: string
  /** When it arrived (ms since the epoch), to measure the waits between retries. */
  readonly at: number
  readonly status: number
}

/**
 * A webhook receiver: a real HTTP server on loopback that records every request and
 * answers with the status `answer` picks for the n-th request (0-based; its headers given too), 200 by default,
 * after the delay `delayMs` picks for it (none by default: a slow receiver for timeouts).
 * `mostAtOnce` is the most requests it had open at the same time.
 */
export async function startWebhookReceiver(
  t: Test,
  answer: (n: number, headers: Record<string, string>) => number = () => 200,
  delayMs: (n: number) => number = () => 0,
): Promise<{ url: string; received: Received[]; mostAtOnce: () => number }> {
  const received: Received[] = []
  // Requests open at once (arrived, connection not closed yet): what the sender's caps limit.
  let open = 0
  let mostAtOnce = 0
  const server = createServer((request, response) => {
    open++
    mostAtOnce = Math.max(mostAtOnce, open)
    response.on('close', () => open--)
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const n = received.length
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]))
      const status = answer(n, headers)
      received.push({ headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), status })
      const delay = delayMs(n)
      if (delay === 0) return void response.writeHead(status).end()
      const timer = setTimeout(() => response.writeHead(status).end(), delay)
      response.on('close', () => clearTimeout(timer))
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        // Requests still held (a receiver that never answers) would keep it open.
        server.closeAllConnections()
      }),
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/mats`, received, mostAtOnce: () => mostAtOnce }
}

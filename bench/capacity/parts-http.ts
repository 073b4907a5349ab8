/**
 * A part of a task: one POST on a bare fastify server (a JSON body checked by a schema, a 201
 * with a task-sized JSON answer), the server's CPU alone: it runs in a process of its own, the
 * client (fetch, 8 at a time) in this one.
 */
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'

const SERVER = fileURLToPath(new URL('./parts-http-server.ts', import.meta.url))
const IN_FLIGHT = 8
const BODY = JSON.stringify({ sessionId: '8f0b9c1e-2a57-4c1e-9a4d-3f0f5e7d2b11', instruction: 'Overhead brief r1-7: plan the launch posts' })

/** µs of the server's CPU per POST. */
export async function httpPostCost(count: number): Promise<number> {
  const server = fork(SERVER, [], { execArgv: ['--import', 'tsx'] })
  try {
    const [url] = (await once(server, 'message')) as [string]
    const cpu = async () => {
      server.send('cpu')
      const [micros] = (await once(server, 'message')) as [number]
      return micros
    }
    const post = async () => {
      const res = await fetch(`${url}/v1/tasks`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer bench' }, body: BODY })
      await res.arrayBuffer()
    }
    // The server's first requests compile its paths.
    for (let i = 0; i < 500; i++) await post()
    const before = await cpu()
    let next = 0
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = next++; i < count; i = next++) await post()
      }),
    )
    return ((await cpu()) - before) / count
  } finally {
    server.kill()
  }
}

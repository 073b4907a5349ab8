/**
 * A part of a task: one POST on a bare fastify server (a JSON body checked by a schema, a 201
 * with a task-sized JSON answer), the server's CPU alone: the server runs in a process of its
 * own with the node flags mats runs with (this module forked with `--fastify`), the client
 * (fetch, 8 at a time) in the bench's.
 */
import { fork } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import { forEachAtMost } from '../../consumers/schedules/at-most.js'
import { benchNodeFlags } from '../node-flags.js'
import { cpuMicrosSince } from './parts-cpu.js'
import { BURST_BRIEF } from './parts-task.js'

const IN_FLIGHT = 8
const WARM_UP = 500
const SESSION_ID = randomUUID()
const BODY = JSON.stringify({ sessionId: SESSION_ID, instruction: BURST_BRIEF })

/** What the server sends: its URL once listening, then its CPU (µs) each time it is asked. */
type Said = { readonly url: string } | { readonly cpuMicros: number }

/** µs of the server's CPU per POST, `count` of them after a warm-up. */
export async function httpPostCost(count: number): Promise<number> {
  const server = fork(fileURLToPath(import.meta.url), ['--fastify'], { execArgv: [...benchNodeFlags(), '--import', 'tsx'] })
  const exited = new Promise<never>((_, reject) => server.once('exit', (code) => reject(new Error(`the fastify server exited with ${code}`))))
  const next = () => Promise.race([new Promise<Said>((resolve) => server.once('message', (said: Said) => resolve(said))), exited])
  try {
    const listening = await next()
    if (!('url' in listening)) throw new Error('the fastify server sent its CPU before its URL')
    const cpu = async () => {
      server.send('cpu')
      const said = await next()
      if (!('cpuMicros' in said)) throw new Error('the fastify server sent no CPU')
      return said.cpuMicros
    }
    const post = async () => {
      const res = await fetch(`${listening.url}/v1/tasks`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer bench' }, body: BODY })
      await res.arrayBuffer()
    }
    // The server's first requests compile its paths.
    for (let i = 0; i < WARM_UP; i++) await post()
    const before = await cpu()
    await forEachAtMost(Array.from({ length: count }), IN_FLIGHT, post)
    return ((await cpu()) - before) / count
  } finally {
    exited.catch(() => undefined)
    server.kill()
  }
}

async function serve(): Promise<void> {
  const answer = {
    task: {
      id: randomUUID(),
      sessionId: SESSION_ID,
      agentType: 'growth-marketer',
      status: 'pending',
      instruction: BURST_BRIEF,
      title: null,
      priority: 'normal',
      output: null,
      error: null,
      costUsd: 0,
      createdAt: new Date().toISOString(),
      startedAt: null,
      completedAt: null,
    },
  }
  const body = {
    type: 'object',
    required: ['sessionId', 'instruction'],
    properties: { sessionId: { type: 'string', format: 'uuid' }, instruction: { type: 'string', minLength: 1, maxLength: 10_000 }, agentType: { type: 'string' } },
  }
  const app = Fastify({ logger: false })
  app.post('/v1/tasks', { schema: { body } }, async (_request, reply) => reply.code(201).header('location', `/v1/tasks/${answer.task.id}`).send(answer))
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  process.on('message', () => process.send?.({ cpuMicros: cpuMicrosSince() } satisfies Said))
  process.send?.({ url } satisfies Said)
}

if (process.argv.includes('--fastify')) {
  // The bench that forked this process ended (or crashed): end too.
  process.once('disconnect', () => process.exit(1))
  await serve()
}

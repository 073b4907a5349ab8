/** The bare fastify server of parts-http.ts: sends its URL, then its CPU (µs) whenever asked. */
import Fastify from 'fastify'

const ANSWER = {
  task: {
    id: '2b7c4c86-3f2e-4c7b-8f11-5a0f6f0b7e21',
    sessionId: '8f0b9c1e-2a57-4c1e-9a4d-3f0f5e7d2b11',
    agentType: 'supervisor',
    status: 'pending',
    instruction: 'Overhead brief r1-7: plan the launch posts',
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

const app = Fastify({ logger: false })
app.post(
  '/v1/tasks',
  {
    schema: {
      body: {
        type: 'object',
        required: ['sessionId', 'instruction'],
        properties: { sessionId: { type: 'string', format: 'uuid' }, instruction: { type: 'string', minLength: 1, maxLength: 10_000 }, agentType: { type: 'string' } },
      },
    },
  },
  async (_request, reply) => reply.code(201).header('location', `/v1/tasks/${ANSWER.task.id}`).send(ANSWER),
)
const url = await app.listen({ port: 0, host: '127.0.0.1' })
process.on('message', () => {
  const used = process.cpuUsage()
  process.send?.(used.user + used.system)
})
process.send?.(url)

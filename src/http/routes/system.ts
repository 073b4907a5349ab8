import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ALL_PROJECTIONS, type ReadModels } from '../../../projections/index.js'
import { settleWithin } from '../../infra/deadline.js'
import { STREAM_NAMES } from '../../infra/nats/subjects.js'
import { errorBody, errorSchema } from '../../contract/errors.js'

/** Liveness and readiness for orchestrators; no key needed. */
const system: FastifyPluginAsyncTypebox = async (app) => {
  const Ok = Type.Object({ status: Type.String() })

  app.get('/healthz', { logLevel: 'warn', schema: { response: { 200: Ok } } }, async () => ({ status: 'ok' }))

  app.get(
    '/readyz',
    { logLevel: 'warn', schema: { response: { 200: Ok, 503: errorSchema(503, 'Not ready: the error says what is missing', { codes: ['not_ready'], title: 'NotReadyError' }) } } },
    async (_request, reply) => {
      const problem = await readinessProblem()
      if (problem)
        return reply
          .code(503)
          .header('retry-after', '2')
          .send(errorBody('not_ready', `not ready: ${problem}`))
      return { status: 'ready' }
    },
  )

  /** Both dependencies checked at once, each given READY_CHECK_MS: an orchestrator's probe gets its answer within a second. */
  async function readinessProblem(): Promise<string | null> {
    const { nc, jsm, db } = app.infra
    if (nc.isClosed()) return 'NATS connection closed'
    if (!app.infra.link.isUp) return 'NATS unreachable (reconnecting)'
    const problems = await Promise.all([
      withinDeadline(Promise.all(STREAM_NAMES.map((name) => jsm.streams.info(name))), 'NATS JetStream streams unreachable'),
      withinDeadline(db.command({ ping: 1 }), 'MongoDB unreachable'),
    ])
    return [...problems, stoppedProjection(app.infra.readModels)].filter((problem) => problem !== null).join('; ') || null
  }
}

const READY_CHECK_MS = 800

async function withinDeadline(check: Promise<unknown>, problem: string): Promise<string | null> {
  const settled = await settleWithin(check, READY_CHECK_MS)
  if (settled.outcome === 'done') return null
  return settled.outcome === 'late' ? `${problem} (no answer within ${READY_CHECK_MS} ms)` : problem
}

export default system

/** A projection stopped on an event it cannot apply (projections/engine/halts.ts): read from memory, refreshed every second. */
function stoppedProjection(readModels: ReadModels): string | null {
  for (const projection of ALL_PROJECTIONS) {
    const [stopped] = readModels.stoppedOf(projection)
    if (stopped) return `projection ${projection.name} stopped at ${projection.stream} sequence ${stopped.seq} (${stopped.type}): ${stopped.error}`
  }
  return null
}

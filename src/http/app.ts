import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import type { AppContext } from '../app-context.js'
import mcp from '../mcp/plugin.js'
import accountScope from './plugins/account-scope.js'
import auth from './plugins/auth.js'
import consoleApp from './plugins/console.js'
import docs from './plugins/docs.js'
import errors from './plugins/errors.js'
import idempotency from './plugins/idempotency.js'
import metrics from './plugins/metrics.js'
import notFound from './plugins/not-found.js'
import openapi, { API_PREFIX } from './plugins/openapi.js'
import rateLimit from './plugins/rate-limit.js'
import streamLimit from './plugins/stream-limit.js'
import tracing from './plugins/tracing.js'
import accountEvents from './routes/account-events.js'
import actions from './routes/actions.js'
import agents from './routes/agents.js'
import consoleSession from './routes/console-session.js'
import me from './routes/me.js'
import schedules from './routes/schedules.js'
import sessions from './routes/sessions.js'
import system from './routes/system.js'
import taskEvents from './routes/task-events.js'
import tasks from './routes/tasks.js'
import taskRerunsAndBatches from './routes/task-reruns-and-batches.js'
import usage from './routes/usage.js'
import webhooks from './routes/webhooks.js'
import './types.js'

export interface AppOptions {
  readonly infra: AppContext
}

/** The whole HTTP API as one plugin; src/http/server.ts is the shell that listens. */
const app: FastifyPluginAsync<AppOptions> = async (fastify, { infra }) => {
  fastify.decorate('infra', infra)
  await fastify.register(tracing)
  await fastify.register(errors)
  await fastify.register(metrics)
  await fastify.register(notFound)
  await fastify.register(openapi)
  await fastify.register(rateLimit)
  await fastify.register(streamLimit)
  await fastify.register(docs)
  await fastify.register(auth)
  await fastify.register(idempotency)
  await fastify.register(system)
  await fastify.register(mcp)
  await fastify.register(consoleApp)
  await fastify.register(consoleSession)
  // /v1: what an API key may do. The account scope's hooks authenticate every route in it and
  // spend the rate-limit group each route names in `config: { rateLimitGroup }`
  // (plugins/account-scope.ts). A new /v1 route goes in here; the public ones (the OpenAPI
  // document, /v1/docs) are in the scope of plugins/docs.ts, limited per client address.
  await fastify.register(
    async (v1) => {
      await v1.register(accountScope)
      await v1.register(agents)
      await v1.register(sessions)
      await v1.register(tasks)
      await v1.register(taskRerunsAndBatches)
      await v1.register(taskEvents)
      await v1.register(schedules)
      await v1.register(accountEvents)
      await v1.register(actions)
      await v1.register(me)
      await v1.register(usage)
      await v1.register(webhooks)
    },
    { prefix: API_PREFIX },
  )
}

export default fp(app, { name: 'mats-app' })

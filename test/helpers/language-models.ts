import { Writable } from 'node:stream'
import pino, { type Logger } from 'pino'
import type { Test } from 'tap'
import type { PlatformConnectors } from '../../consumers/connectors/platform-connectors.js'
import type { AppContext } from '../../src/app-context.js'
import { startFakeModelServer, type FakeModelServer, type ModelReply, type ModelRequestView, type ModelScript, type Wire } from '../fakes/model-server.js'
import type { ApiClient } from './http.js'
import { aCaller, aSessionBody, type Caller } from './mothers.js'
import type { TestServers } from './servers.js'
import { startTestService, type TestService } from './service.js'
import { until } from './wait.js'

export const PROVIDER_KEY = 'sk-test-5f3c9a1e7b2d4c6e8f0a1b3c5d7e9f1a'
export const MODEL = 'model-under-test'
/** USD per million tokens: 2 in, 8 out, so 1000 in + 200 out cost 3600 micro-USD. */
export const PRICES = `${MODEL}=2/8`

export interface TaskView {
  id: string
  status: string
  taskType: string
  parentTaskId: string | null
  agentType: string
  result: string | null
  error: string | null
}

export interface LanguageModelRig {
  readonly fake: FakeModelServer
  readonly service: TestService
  readonly infra: AppContext
  readonly caller: Caller
  readonly sessionId: string
}

/** A fake provider speaking `wire`, the service pointed at it, and a caller with a session. */
export async function languageModelRig(
  t: Test,
  servers: TestServers,
  wire: Wire,
  script: ModelScript,
  options: { env?: Record<string, string>; session?: Record<string, unknown>; log?: Logger; connectors?: PlatformConnectors } = {},
): Promise<LanguageModelRig> {
  const fake = await startFakeModelServer(t, wire, script)
  const service = await startTestService(t, servers, {
    env: { LLM_PROVIDER: wire, LLM_BASE_URL: fake.baseUrl, LLM_API_KEY: PROVIDER_KEY, LLM_MODEL: MODEL, LLM_PRICES: PRICES, LLM_MAX_RETRIES: '2', ...options.env },
    ...(options.log ? { log: options.log } : {}),
    ...(options.connectors ? { connectors: options.connectors } : {}),
  })
  const caller = await aCaller(service.infra, service.url)
  const session = await caller.api.post<{ session: { id: string } }>('/v1/sessions', aSessionBody(options.session))
  if (session.status !== 201) throw new Error(`session not created: ${JSON.stringify(session.body)}`)
  return { fake, service, infra: service.infra, caller, sessionId: session.body.session.id }
}

export async function runToEnd(api: ApiClient, body: Record<string, unknown>, timeoutMs = 60_000): Promise<TaskView> {
  const created = await api.post<{ task: TaskView }>('/v1/tasks', body)
  if (created.status !== 201) throw new Error(`task not created: ${created.status} ${JSON.stringify(created.body)}`)
  return until(
    `task ${created.body.task.id} to end`,
    async () => {
      const {
        body: { task },
      } = await api.get<{ task: TaskView }>(`/v1/tasks/${created.body.task.id}`)
      return (task.status === 'completed' || task.status === 'failed') && task
    },
    timeoutMs,
  )
}

/** A logger whose lines (JSON text) the test can read. */
export function capturingLog(level: string): { readonly log: Logger; readonly lines: string[] } {
  const lines: string[] = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'))
      done()
    },
  })
  return { log: pino({ level }, sink), lines }
}

/** The supervisor delegates twice at once, and its specialists never answer: a run that waits on two delegated runs. */
export const delegatesTwiceThenHangs = (request: ModelRequestView): ModelReply =>
  request.system.startsWith('You are the Growth Marketer') && request.turn === 0
    ? {
        text: '',
        calls: [
          { name: 'delegate_to_specialist', args: { agentType: 'seo', instruction: 'Audit the kit pages' } },
          { name: 'delegate_to_specialist', args: { agentType: 'creative', instruction: 'Three ad concepts for the kit' } },
        ],
      }
    : { hang: true }

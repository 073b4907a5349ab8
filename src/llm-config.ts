import { Type } from 'typebox'
import { AGENT_TYPES, type AgentType } from './domain/agents/catalogue.js'
import { listOf } from './infra/typebox/list-pattern.js'

/** The variables of Config (src/config.ts) that say who runs the agents and at what price, documented in docs/configuration.md. */
export const LanguageModelSettingsSchema = {
  OFFLINE_AGENT_LATENCY_MS: Type.Integer({ minimum: 0, maximum: 600_000, default: 200, description: 'How long an offline agent run takes' }),
  OFFLINE_PRICE_INPUT_PER_MTOK_USD: Type.Number({ minimum: 0, default: 0.1 }),
  OFFLINE_PRICE_OUTPUT_PER_MTOK_USD: Type.Number({ minimum: 0, default: 0.4 }),
  LLM_PROVIDER: Type.Enum(['offline', 'openai', 'anthropic'], {
    default: 'offline',
    description: 'Who runs the agents: the offline provider (no network), an OpenAI-compatible chat-completions server, or Anthropic',
  }),
  LLM_BASE_URL: Type.Optional(Type.String({ format: 'uri', description: "The provider's API root, e.g. http://127.0.0.1:11434/v1 for Ollama; the vendor's own when unset" })),
  LLM_API_KEY: Type.Optional(Type.String({ minLength: 1, description: 'Sent to the provider only; never logged or stored' })),
  LLM_MODEL: Type.Optional(Type.String({ minLength: 1, description: 'The model every agent uses unless LLM_MODELS names another' })),
  LLM_MODELS: Type.String({ pattern: listOf('[a-z-]+\\s*=\\s*[^,=\\s]+'), default: '', description: 'Per-agent models: agent-type=model, comma-separated' }),
  LLM_MAX_STEPS: Type.Integer({ minimum: 1, maximum: 100, default: 12, description: 'Model calls one agent run may make before it fails with step_limit' }),
  LLM_MAX_OUTPUT_TOKENS: Type.Integer({ minimum: 1, maximum: 200_000, default: 4096, description: 'Anthropic max_tokens per model call' }),
  LLM_REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 120_000, description: 'One model call; a call that times out is retried' }),
  LLM_MAX_RETRIES: Type.Integer({
    minimum: 0,
    maximum: 10,
    default: 3,
    description: 'Retries of one model call after a 408, 409, 429, 5xx, timeout or lost connection, with exponential backoff honouring Retry-After',
  }),
  LLM_PRICE_INPUT_PER_MTOK_USD: Type.Number({ minimum: 0, default: 3, description: 'USD per million input tokens for models LLM_PRICES does not list' }),
  LLM_PRICE_OUTPUT_PER_MTOK_USD: Type.Number({ minimum: 0, default: 15, description: 'USD per million output tokens for models LLM_PRICES does not list' }),
  LLM_PRICES: Type.String({
    pattern: listOf('[^,=\\s]+\\s*=\\s*\\d+(\\.\\d+)?\\s*/\\s*\\d+(\\.\\d+)?'),
    default: '',
    description: 'Per-model prices: model=input/output in USD per million tokens, comma-separated',
  }),
}

/** The language-model settings of Config, checked together once the variables parse one by one. */
interface LanguageModelSettings {
  readonly LLM_PROVIDER: 'offline' | 'openai' | 'anthropic'
  readonly LLM_BASE_URL?: string | undefined
  readonly LLM_API_KEY?: string | undefined
  readonly LLM_MODEL?: string | undefined
  readonly LLM_MODELS: string
  readonly LLM_PRICES: string
}

export interface ModelPrice {
  /** USD per million input tokens. */
  readonly input: number
  /** USD per million output tokens. */
  readonly output: number
}

const entries = (list: string): [string, string][] =>
  list
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => {
      const at = item.indexOf('=')
      return [item.slice(0, at).trim(), item.slice(at + 1).trim()]
    })

/** `LLM_MODELS`, already matched by its pattern: agent type → model. */
function parseModelMap(list: string): Map<string, string> {
  return new Map(entries(list))
}

/** `LLM_PRICES`, already matched by its pattern: model → prices. */
export function parsePriceTable(list: string): Map<string, ModelPrice> {
  return new Map(
    entries(list).map(([model, prices]) => {
      const [input = '0', output = '0'] = prices.split('/')
      return [model, { input: Number(input), output: Number(output) }]
    }),
  )
}

/** The model each agent runs on: its own from LLM_MODELS, else LLM_MODEL (undefined: none configured). */
export function modelsByAgent(settings: Pick<LanguageModelSettings, 'LLM_MODEL' | 'LLM_MODELS'>): Map<AgentType, string | undefined> {
  const own = parseModelMap(settings.LLM_MODELS)
  return new Map(AGENT_TYPES.map((type) => [type, own.get(type) ?? settings.LLM_MODEL]))
}

export function languageModelProblems(settings: LanguageModelSettings): string[] {
  const problems: string[] = []
  for (const agentType of parseModelMap(settings.LLM_MODELS).keys()) {
    if (!(AGENT_TYPES as readonly string[]).includes(agentType)) problems.push(`LLM_MODELS: ${JSON.stringify(agentType)} is not an agent type (one of ${AGENT_TYPES.join(', ')})`)
  }
  if (settings.LLM_PROVIDER === 'offline') return problems
  const models = modelsByAgent(settings)
  const unmodelled = AGENT_TYPES.filter((type) => models.get(type) === undefined)
  if (unmodelled.length > 0) problems.push(`LLM_MODEL: required with LLM_PROVIDER=${settings.LLM_PROVIDER} (LLM_MODELS does not name a model for ${unmodelled.join(', ')})`)
  if (settings.LLM_API_KEY === undefined && (settings.LLM_PROVIDER === 'anthropic' || settings.LLM_BASE_URL === undefined)) {
    const unless = settings.LLM_PROVIDER === 'openai' ? ' unless LLM_BASE_URL points at a server that needs none' : ''
    problems.push(`LLM_API_KEY: required with LLM_PROVIDER=${settings.LLM_PROVIDER}${unless}`)
  }
  return problems
}

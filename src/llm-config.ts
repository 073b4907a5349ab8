import { AGENT_TYPES, type AgentType } from './domain/agents/catalogue.js'

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

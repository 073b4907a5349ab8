import t from 'tap'
import { loadConfig, type Config } from '../../src/config.js'
import { problemsOf } from '../helpers/config-problems.js'

const defaults: Config = {
  NATS_URL: 'nats://127.0.0.1:4222',
  MONGODB_URL: 'mongodb://127.0.0.1:27017/mats',
  HOST: '127.0.0.1',
  PORT: 8080,
  LOG_LEVEL: 'info',
  MCP_ALLOWED_ORIGINS: '',
  NATS_STREAM_REPLICAS: 1,
  NATS_TIMEOUT_MS: 800,
  NATS_BATCHES_PER_STREAM: 16,
  MONGODB_TIMEOUT_MS: 1500,
  DEFAULT_MONTHLY_BUDGET_USD: 100,
  AUTH_CACHE_TTL_MS: 2000,
  RATE_LIMITS_ENABLED: true,
  RATE_LIMIT_TASKS_CREATE_PER_MIN: 20,
  RATE_LIMIT_TASKS_READ_PER_MIN: 120,
  RATE_LIMIT_SESSIONS_PER_MIN: 60,
  RATE_LIMIT_META_PER_MIN: 60,
  RATE_LIMIT_OPENAPI_PER_MIN: 60,
  RATE_LIMIT_AUTH_FAILURES_PER_MIN: 30,
  RATE_LIMIT_WEBHOOKS_PER_MIN: 60,
  TASK_RESERVATION_USD: 0.01,
  WORKER_CONCURRENCY: 4,
  SCHEDULES_PER_ACCOUNT: 500,
  SCHEDULE_TICKS_PER_MIN: 1200,
  SCHEDULER_REFRESH_MS: 2000,
  SCHEDULER_LEASE_MS: 5000,
  WORKER_LOOKAHEAD: 256,
  WORKER_ACK_WAIT_MS: 30_000,
  PROJECTOR_LEASE_MS: 5000,
  LIVE_EVENTS_IDLE_MS: 5000,
  TASK_EVENTS_HEARTBEAT_MS: 15_000,
  SSE_MAX_STREAMS_PER_ACCOUNT: 100,
  TRUST_PROXY: 'false',
  WEBHOOKS_PREVIOUS_SECRET_KEYS: '',
  WEBHOOKS_ALLOW_PRIVATE_URLS: false,
  WEBHOOKS_TIMEOUT_MS: 10_000,
  WEBHOOKS_RETRY_BASE_MS: 5000,
  WEBHOOKS_RETRY_MAX_DELAY_MS: 3_600_000,
  WEBHOOKS_RETRY_WINDOW_MS: 86_400_000,
  WEBHOOKS_CONCURRENCY: 32,
  WEBHOOKS_MAX_IN_FLIGHT_PER_ACCOUNT: 8,
  WEBHOOKS_MAX_IN_FLIGHT_PER_WEBHOOK: 4,
  WEBHOOKS_PREVIOUS_SECRETS_KEPT: 1,
  WEBHOOKS_PAUSE_AFTER_TIMEOUTS: 5,
  WEBHOOKS_PAUSE_MS: 60_000,
  TASK_TIMEOUT_MS: 900_000,
  OFFLINE_AGENT_LATENCY_MS: 200,
  OFFLINE_PRICE_INPUT_PER_MTOK_USD: 0.1,
  OFFLINE_PRICE_OUTPUT_PER_MTOK_USD: 0.4,
  LLM_PROVIDER: 'offline',
  LLM_MODELS: '',
  LLM_MAX_STEPS: 12,
  LLM_MAX_OUTPUT_TOKENS: 4096,
  LLM_REQUEST_TIMEOUT_MS: 120_000,
  LLM_MAX_RETRIES: 3,
  LLM_PRICE_INPUT_PER_MTOK_USD: 3,
  LLM_PRICE_OUTPUT_PER_MTOK_USD: 15,
  LLM_PRICES: '',
  DEV_DATA_DIR: '.mats',
  DEV_NATS_PORT: 4222,
  DEV_MONGODB_PORT: 27017,
  DEV_ATTACH: false,
  CONSOLE_SESSION_IDLE_MS: 1_800_000,
  SHUTDOWN_GRACE_MS: 10_000,
}

t.test('an empty environment gives every default', async (t) => {
  t.same(loadConfig({}), defaults)
  t.notOk('PUBLIC_BASE_URL' in loadConfig({}), 'an optional without a default stays absent')
})

t.test('numbers are converted from their text', async (t) => {
  const config = loadConfig({ PORT: '9090', NATS_STREAM_REPLICAS: '3', DEFAULT_MONTHLY_BUDGET_USD: '12.5', AUTH_CACHE_TTL_MS: '0', SHUTDOWN_GRACE_MS: '500' })
  t.same(config, { ...defaults, PORT: 9090, NATS_STREAM_REPLICAS: 3, DEFAULT_MONTHLY_BUDGET_USD: 12.5, AUTH_CACHE_TTL_MS: 0, SHUTDOWN_GRACE_MS: 500 })
})

t.test('strings are taken as given', async (t) => {
  const env = { NATS_URL: 'nats://a:4222,nats://b:4222', MONGODB_URL: 'mongodb+srv://db.example/x', HOST: '0.0.0.0', LOG_LEVEL: 'debug', PUBLIC_BASE_URL: 'https://api.example' }
  t.same(loadConfig(env), { ...defaults, ...env })
})

t.test('empty strings count as unset', async (t) => {
  t.same(loadConfig({ PORT: '', LOG_LEVEL: '', MONGODB_URL: '', NATS_URL: '', PUBLIC_BASE_URL: '' }), defaults)
})

t.test('unknown environment variables are ignored', async (t) => {
  t.same(loadConfig({ PATH: '/usr/bin', HOME: '/root', MATS_SOMETHING: 'x', port: 'abc' }), defaults)
})

t.test('each bad value is a ConfigError naming its variable', async (t) => {
  const cases: [string, string][] = [
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['LOG_LEVEL', 'loud'],
    ['MONGODB_URL', 'postgres://x'],
    ['AUTH_CACHE_TTL_MS', '6000'],
    ['NATS_STREAM_REPLICAS', '0'],
    ['NATS_BATCHES_PER_STREAM', '0'],
    ['NATS_BATCHES_PER_STREAM', '1001'],
    ['DEFAULT_MONTHLY_BUDGET_USD', '-5'],
    ['PUBLIC_BASE_URL', 'not a uri'],
    ['TASK_TIMEOUT_MS', '2147483648'],
  ]
  for (const [name, value] of cases) {
    const problems = problemsOf(t, { [name]: value })
    t.ok(problems.length > 0, `${name}=${value} is refused`)
    t.ok(
      problems.every((p) => p.startsWith(`${name}: `)),
      `${name}=${value}: every problem names ${name}: ${problems.join(' | ')}`,
    )
  }
})

t.test('a problem quotes the value that was given', async (t) => {
  t.match(problemsOf(t, { PORT: '70000' }).join('\n'), /^PORT: .*\(got "70000"\)/)
})

t.test('several bad values are all reported at once', async (t) => {
  const problems = problemsOf(t, { PORT: 'abc', LOG_LEVEL: 'loud', MONGODB_URL: 'postgres://x', AUTH_CACHE_TTL_MS: '6000' })
  const named = new Set(problems.map((p) => p.split(':')[0]))
  t.same([...named].sort(), ['AUTH_CACHE_TTL_MS', 'LOG_LEVEL', 'MONGODB_URL', 'PORT'])
})

t.test('the error message lists every problem', async (t) => {
  t.throws(() => loadConfig({ PORT: 'abc', LOG_LEVEL: 'loud' }), { name: 'ConfigError', message: /^invalid configuration:\n {2}(PORT|LOG_LEVEL): [\s\S]*\n {2}(PORT|LOG_LEVEL): / })
})

t.test('a language-model provider needs a model for every agent and, at the vendor, a key', async (t) => {
  t.match(problemsOf(t, { LLM_PROVIDER: 'openai' }), [/^LLM_MODEL: required with LLM_PROVIDER=openai/, /^LLM_API_KEY: required/])
  t.match(problemsOf(t, { LLM_PROVIDER: 'anthropic', LLM_API_KEY: 'k', LLM_MODELS: 'seo=m1' }), [/LLM_MODELS does not name a model for growth-marketer, organic-social/])
  const local = loadConfig({ LLM_PROVIDER: 'openai', LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'llama3.1:8b' })
  t.equal(local.LLM_MODEL, 'llama3.1:8b', 'a local server needs no key')
})

t.test('per-agent models must name agent types; prices must read model=input/output', async (t) => {
  t.match(problemsOf(t, { LLM_MODELS: 'seo=m1, copywriter=m2' }), [/^LLM_MODELS: "copywriter" is not an agent type/])
  t.match(problemsOf(t, { LLM_MODELS: 'seo' }), [/^LLM_MODELS: must match pattern/])
  t.match(problemsOf(t, { LLM_PRICES: 'gpt-4o=2.5' }), [/^LLM_PRICES: must match pattern/])
  const config = loadConfig({ LLM_MODELS: ' seo = m1 ,cro=org/m2:7b', LLM_PRICES: 'meta/llama:8b=0.1/0.2,gpt=2.5 / 10' })
  t.equal(config.LLM_PRICES, 'meta/llama:8b=0.1/0.2,gpt=2.5 / 10')
})

t.test('TRUST_PROXY takes false, true, a hop count or addresses and CIDR ranges; anything else is named', async (t) => {
  for (const value of ['false', 'true', '2', 'loopback', '10.0.0.0/8, 192.168.1.7, fd00::/8, uniquelocal']) t.equal(loadConfig({ TRUST_PROXY: value }).TRUST_PROXY, value, `${value}: loads`)
  t.match(problemsOf(t, { TRUST_PROXY: '10.0.0.0/33, proxy.local' }), [/^TRUST_PROXY: "10\.0\.0\.0\/33", "proxy\.local" is not an address, CIDR range or one of loopback/])
})

t.test('METRICS_TOKEN must be at least 16 printable characters without spaces', async (t) => {
  t.match(problemsOf(t, { METRICS_TOKEN: 'short' }), [/^METRICS_TOKEN: /])
  t.match(problemsOf(t, { METRICS_TOKEN: 'has a space in it, long enough' }), [/^METRICS_TOKEN: /])
  t.equal(loadConfig({ METRICS_TOKEN: 'a-long-enough-token' }).METRICS_TOKEN, 'a-long-enough-token')
})

t.test('Anthropic always needs a key', async (t) => {
  t.match(problemsOf(t, { LLM_PROVIDER: 'anthropic', LLM_MODEL: 'claude', LLM_BASE_URL: 'http://127.0.0.1:9/' }), [/^LLM_API_KEY: required with LLM_PROVIDER=anthropic$/])
})

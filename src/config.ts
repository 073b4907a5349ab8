import { Type, type Static, type TSchema } from 'typebox'
import { Value } from 'typebox/value'
import { trustProxyProblems } from './http/client-address.js'
import { convertText } from './infra/typebox/convert-text.js'
import { LanguageModelSettingsSchema, languageModelProblems } from './llm-config.js'
import { natsSecurityProblems } from './nats-config.js'
import { WebhookSettingsSchema } from './webhooks-config.js'

/**
 * Configuration comes only from environment variables, validated once at boot.
 * Every variable is documented in docs/configuration.md.
 */
export const ConfigSchema = Type.Object({
  NATS_URL: Type.String({ minLength: 1, default: 'nats://127.0.0.1:4222', description: 'NATS server(s), comma-separated' }),
  MONGODB_URL: Type.String({ pattern: '^mongodb(\\+srv)?://', default: 'mongodb://127.0.0.1:27017/mats', description: 'MongoDB connection string; its path names the database' }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  PUBLIC_BASE_URL: Type.Optional(Type.String({ format: 'uri', description: 'Base address advertised in the OpenAPI servers list' })),
  MCP_ALLOWED_ORIGINS: Type.String({
    pattern: '^(https?://[^,/\\s]+(\\s*,\\s*https?://[^,/\\s]+)*)?$',
    default: '',
    description: 'Browser origins (scheme://host[:port], comma-separated) allowed to call /mcp besides loopback ones and that of PUBLIC_BASE_URL; requests without Origin are always allowed',
  }),
  NATS_STREAM_REPLICAS: Type.Integer({ minimum: 1, maximum: 5, default: 1 }),
  METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      description: 'Serve GET /metrics on this port (on HOST), in every role, and not on PORT; unset, the api role serves it on PORT and other roles nowhere',
    }),
  ),
  METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      pattern: '^[\\x21-\\x7E]+$',
      description: 'GET /metrics answers only with "Authorization: Bearer <this>" (on PORT and on METRICS_PORT); unset, /metrics on PORT answers loopback clients only. Never logged',
    }),
  ),
  TRUST_PROXY: Type.String({
    default: 'false',
    description:
      "Which peers' X-Forwarded-For is believed for the client address (per-address limits, logs), as fastify's trustProxy: false, true, a hop count, or addresses and CIDR ranges (comma-separated; loopback, linklocal, uniquelocal name ranges)",
  }),
  NATS_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 800,
    description:
      'How long one NATS request (an append, a read, a KV step) may take; past it the API answers 503 and the worker tries again. A request caught by an outage mid-way answers within about twice this',
  }),
  NATS_BATCHES_PER_STREAM: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 16,
    description:
      "Atomic batches (decisions of several events) this process keeps open at once on one stream; more wait their turn within NATS_TIMEOUT_MS. nats-server holds 50 per stream for all processes together and refuses the next (they are then sent again within NATS_TIMEOUT_MS): keep the processes' sum under it",
  }),
  MONGODB_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 1500, description: 'How long to wait for a reachable MongoDB server before a read answers 503' }),
  // One way to authenticate to NATS at most, and TLS: checked together in nats-config.ts.
  NATS_CREDS_FILE: Type.Optional(Type.String({ minLength: 1, description: 'NATS user credentials file (user JWT and nkey seed, as nsc writes it)' })),
  NATS_NKEY_SEED_FILE: Type.Optional(Type.String({ minLength: 1, description: 'File holding a NATS user nkey seed (SU...)' })),
  NATS_USER: Type.Optional(Type.String({ minLength: 1, description: 'NATS user name; needs NATS_PASSWORD' })),
  NATS_PASSWORD: Type.Optional(Type.String({ minLength: 1, description: 'Password of NATS_USER; never logged' })),
  NATS_TOKEN: Type.Optional(Type.String({ minLength: 1, description: 'NATS authentication token; never logged' })),
  NATS_TLS: Type.Optional(Type.Boolean({ description: 'Require TLS to NATS, verified against the system CAs unless NATS_TLS_CA_FILE is set' })),
  NATS_TLS_CA_FILE: Type.Optional(Type.String({ minLength: 1, description: 'PEM file of the CA certificate(s) that signed the NATS servers' })),
  NATS_TLS_CERT_FILE: Type.Optional(Type.String({ minLength: 1, description: 'PEM client certificate for NATS servers that verify clients; needs NATS_TLS_KEY_FILE' })),
  NATS_TLS_KEY_FILE: Type.Optional(Type.String({ minLength: 1, description: 'PEM private key of NATS_TLS_CERT_FILE' })),
  NATS_TLS_SERVER_NAME: Type.Optional(
    Type.String({ pattern: '^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$', description: "Host name expected in the NATS servers' certificates, when it differs from the host in NATS_URL" }),
  ),
  DEFAULT_MONTHLY_BUDGET_USD: Type.Number({ minimum: 0, default: 100 }),
  AUTH_CACHE_TTL_MS: Type.Integer({ minimum: 0, maximum: 4000, default: 2000, description: 'How long an API process trusts a key lookup; bounds how late a revocation is seen' }),
  CONSOLE_SESSION_IDLE_MS: Type.Integer({
    minimum: 1000,
    maximum: 86_400_000,
    default: 1_800_000,
    description:
      'A web console session unused for this long ends (the next request is refused and the console asks to sign in again); only requests someone asked for count as use, not a console left open (ADR 0044); 30 minutes by default, 24 hours at most',
  }),
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 0, default: 10_000 }),
  RATE_LIMITS_ENABLED: Type.Boolean({ default: true, description: 'Turn the per-account limits off (benchmarks only)' }),
  RATE_LIMIT_TASKS_CREATE_PER_MIN: Type.Integer({ minimum: 1, default: 20, description: 'POST /v1/tasks (and run_agent_task) per account' }),
  RATE_LIMIT_TASKS_READ_PER_MIN: Type.Integer({ minimum: 1, default: 120, description: 'GET /v1/tasks, GET /v1/tasks/{id} and GET /v1/tasks/{id}/events (once per stream) together, per account' }),
  RATE_LIMIT_SESSIONS_PER_MIN: Type.Integer({ minimum: 1, default: 60, description: 'GET and POST /v1/sessions and GET /v1/sessions/{sessionId} together, per account' }),
  RATE_LIMIT_META_PER_MIN: Type.Integer({ minimum: 1, default: 60, description: 'GET /v1/agents and GET /v1/me together, per account' }),
  RATE_LIMIT_OPENAPI_PER_MIN: Type.Integer({ minimum: 1, default: 60, description: 'GET /v1/openapi.json per client address (it needs no key)' }),
  RATE_LIMIT_AUTH_FAILURES_PER_MIN: Type.Integer({
    minimum: 1,
    default: 30,
    description: 'Failed authentications (401) per client address; past it, keys this process has not seen are refused with 429 before any lookup',
  }),
  RATE_LIMIT_WEBHOOKS_PER_MIN: Type.Integer({ minimum: 1, default: 60, description: 'Every /v1/webhooks request together, per account' }),
  TASK_RESERVATION_USD: Type.Number({ minimum: 0, default: 0.01, description: 'Counted against the budget for each task in flight until its actual cost is known' }),
  WORKER_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 10_000, default: 4, description: 'Agent runs one worker process runs at once' }),
  SCHEDULES_PER_ACCOUNT: Type.Integer({ minimum: 1, maximum: 100_000, default: 500, description: 'Schedules an account may have that are not deleted (paused ones count); 409 past it' }),
  SCHEDULE_TICKS_PER_MIN: Type.Integer({
    minimum: 1,
    default: 1200,
    description: "Ticks of an account's schedules that may create tasks per minute; the others are recorded as skipped (rate_limited)",
  }),
  SCHEDULER_REFRESH_MS: Type.Integer({
    minimum: 100,
    maximum: 600_000,
    default: 2000,
    description: 'How often a scheduler tries again a schedule change it could not learn (mid-tick, or MongoDB/NATS away); changes are otherwise learnt as they are stored',
  }),
  SCHEDULER_LEASE_MS: Type.Integer({
    minimum: 1000,
    maximum: 600_000,
    default: 5000,
    description: "How long a scheduler's partitions of schedules stay with it after it stops renewing them; another scheduler takes them over (and fires their ticks late) after that",
  }),
  WORKER_LOOKAHEAD: Type.Integer({ minimum: 1, maximum: 10_000, default: 256, description: 'Waiting tasks one worker holds to order by priority and fairness' }),
  WORKER_ACK_WAIT_MS: Type.Integer({ minimum: 1000, maximum: 600_000, default: 30_000, description: 'How long a silent worker is trusted; a task whose worker died fails within about this long' }),
  PROJECTOR_LEASE_MS: Type.Integer({
    minimum: 1000,
    maximum: 600_000,
    default: 5000,
    description: "How long a projector's partitions stay with it after it stops renewing them; another projector takes them over after that",
  }),
  SSE_MAX_STREAMS_PER_ACCOUNT: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 100,
    description: 'Event streams (GET /v1/tasks/{taskId}/events) one account may hold open at once on one API process; past it, 429',
  }),
  LIVE_EVENTS_IDLE_MS: Type.Integer({
    minimum: 0,
    maximum: 600_000,
    default: 5000,
    description:
      'How long an API process keeps its one shared consumer of live task events after the last event stream or waitSeconds wait using it ended, so that the next one reuses it; then it is deleted from the server',
  }),
  TASK_EVENTS_HEARTBEAT_MS: Type.Integer({
    minimum: 100,
    maximum: 300_000,
    default: 15_000,
    description: 'GET /v1/tasks/{taskId}/events sends a keep-alive comment this often, so idle proxies and load balancers keep the stream open',
  }),
  ...WebhookSettingsSchema,
  // A timer fires at once past 2^31 - 1 ms (about 24.8 days): a larger limit would end every run as it starts.
  TASK_TIMEOUT_MS: Type.Integer({ minimum: 1000, maximum: 2_147_483_647, default: 900_000, description: 'Time limit of one agent run' }),
  ...LanguageModelSettingsSchema,
  DEV_DATA_DIR: Type.String({ minLength: 1, default: '.mats', description: 'mats dev: where local servers keep their data' }),
  DEV_NATS_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 4222, description: 'mats dev: port of the local nats-server' }),
  DEV_MONGODB_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 27017, description: 'mats dev: port of the local MongoDB-wire server' }),
  DEV_ATTACH: Type.Boolean({ default: false, description: "mats dev: use servers found on DEV_NATS_PORT / DEV_MONGODB_PORT that it did not start (on a shared host they may be someone else's)" }),
})

export type Config = Static<typeof ConfigSchema>

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  constructor(readonly problems: readonly string[]) {
    // One problem, one line; several, one line each under a heading.
    super(problems.length === 1 ? `invalid configuration: ${problems[0]}` : `invalid configuration:\n  ${problems.join('\n  ')}`)
  }
}

/** Reads only the variables the schema names; empty strings count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, string> = {}
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key]
    if (value !== undefined && value !== '') raw[key] = value
  }
  const config = parseWith(ConfigSchema, raw)
  const problems = [...languageModelProblems(config), ...natsSecurityProblems(config), ...trustProxyProblems(config.TRUST_PROXY)]
  if (problems.length > 0) throw new ConfigError(problems)
  return config
}

function parseWith<S extends TSchema>(schema: S, raw: Record<string, string>): Static<S> {
  const { value: converted, lossy } = convertText(schema, raw)
  const value = Value.Default(schema, converted)
  const problems = [
    ...lossy.map(({ key, text }) => `${key}: must be a number written plainly (got ${JSON.stringify(text)})`),
    ...[...Value.Errors(schema, value)]
      .filter((e) => !lossy.some(({ key }) => `/${key}` === e.instancePath))
      .map((e) => `${e.instancePath.slice(1) || 'config'}: ${e.message} (got ${JSON.stringify(raw[e.instancePath.slice(1)])})`),
  ]
  if (problems.length > 0) throw new ConfigError(problems)
  return value as Static<S>
}

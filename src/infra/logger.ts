import pino, { type Logger } from 'pino'

// Pretty lines for a person at a terminal, formatted in this thread: pino's `transport`
// would start a worker thread (a second V8 heap, ~20 MiB) for it. Never loaded otherwise.
const pretty = process.stdout.isTTY === true && process.env.CI === undefined
const prettyStream = pretty ? (await import('pino-pretty')).default({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service', sync: true }) : undefined

/** JSON lines for machines; pretty only for a person at a terminal. Secrets are redacted. */
export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  const options = {
    level,
    base: { service: 'mats', ...bindings },
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.apiKey', '*.key'], censor: '[redacted]' },
  }
  return prettyStream ? pino(options, prettyStream) : pino(options)
}

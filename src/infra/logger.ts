import pino, { type Logger } from 'pino'

/** JSON lines for machines; pretty only for a person at a terminal. Secrets are redacted. */
export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  const pretty = process.stdout.isTTY === true && process.env.CI === undefined
  return pino({
    level,
    base: { service: 'mats', ...bindings },
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.apiKey', '*.key'], censor: '[redacted]' },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' } } } : {}),
  })
}

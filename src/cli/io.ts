import { parseArgs, type ParseArgsConfig } from 'node:util'
import { InvalidInputError } from '../domain/errors.js'
import type { AppContext } from '../app-context.js'
import { didYouMean } from './suggest.js'

/** A CLI mistake: printed with the usage line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

/** An operator command whose arguments were checked; it runs once connected. */
export type OperatorAction = (infra: AppContext) => Promise<void>

export type Flags = NonNullable<ParseArgsConfig['options']>

export function parse<const O extends Flags>(args: string[], options: O) {
  const withJson = { ...options, json: { type: 'boolean', default: false } } as const
  try {
    return parseArgs({ args, options: withJson, allowPositionals: true, strict: true })
  } catch (err) {
    const [unknown] = unknownOptions(args, withJson)
    if (unknown !== undefined)
      throw new UsageError(
        `unknown option ${unknown}${didYouMean(
          unknown,
          Object.keys(withJson).map((name) => `--${name}`),
        )}`,
      )
    throw new UsageError(err instanceof Error ? err.message : String(err))
  }
}

/** The options given that are not declared, as typed (node's own message quotes them unevenly). */
function unknownOptions(args: string[], options: Flags): string[] {
  const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true })
  return tokens.flatMap((token) => (token.kind === 'option' && !Object.hasOwn(options, token.name) ? [token.rawName] : []))
}

/** The usage error for a verb a command does not have, with the nearest one it does. */
export function unknownVerb(command: string, verb: string | undefined, verbs: readonly string[]): UsageError {
  if (verb === undefined) return new UsageError(`${command}: which one? ${verbs.join(', ')}`)
  return new UsageError(`unknown command: ${command} ${verb}${didYouMean(verb, verbs)}`)
}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`)
  return value
}

export function usd(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  const amount = Number(value)
  if (value.trim() === '' || !Number.isFinite(amount) || amount < 0) throw new InvalidInputError(`${flag}: must be a non-negative amount in USD (got "${value}")`)
  return amount
}

export function isoDate(value: string | undefined, flag: string): Date | undefined {
  if (value === undefined) return undefined
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) throw new InvalidInputError(`${flag}: must be an ISO 8601 date-time (got "${value}")`)
  return date
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function uuid(value: string | undefined, what: string): string {
  const id = required(value, what)
  if (!UUID.test(id)) throw new InvalidInputError(`${what}: must be a UUID (got "${id}")`)
  return id
}

/** `--json` prints one JSON document; otherwise aligned `key: value` lines for people. */
export function print(json: boolean, value: object | readonly object[]): void {
  if (json) return void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`)
  const rows = Array.isArray(value) ? value : [value]
  for (const row of rows) {
    const width = Math.max(0, ...Object.keys(row).map((k) => k.length))
    for (const [k, v] of Object.entries(row)) process.stdout.write(`${k.padEnd(width)}  ${v ?? '-'}\n`)
    if (rows.length > 1) process.stdout.write('\n')
  }
}

import { ConfigError, loadConfig } from '../config.js'
import { DomainError } from '../domain/errors.js'
import { connectInfra, type Infra } from '../infra/context.js'
import { createLogger } from '../infra/logger.js'
import { accounts, ACCOUNTS_USAGE } from './commands/accounts.js'
import { dev, DEV_USAGE } from './commands/dev.js'
import { keys, KEYS_USAGE } from './commands/keys.js'
import { projections, PROJECTIONS_USAGE } from './commands/projections.js'
import { sessions, SESSIONS_USAGE } from './commands/sessions.js'
import { start, START_USAGE } from './commands/start.js'
import { UsageError } from './io.js'

const USAGE = `Usage:
  ${START_USAGE}
  ${DEV_USAGE}
  ${ACCOUNTS_USAGE.replaceAll('\n', '\n  ')}
  ${KEYS_USAGE.replaceAll('\n', '\n  ')}
  ${SESSIONS_USAGE.replaceAll('\n', '\n  ')}
  ${PROJECTIONS_USAGE.replaceAll('\n', '\n  ')}

Configuration comes from environment variables: see docs/configuration.md.`

type OperatorCommand = (infra: Infra, args: string[]) => Promise<void>
const OPERATOR_COMMANDS: Record<string, OperatorCommand> = { accounts, keys, sessions, projections }

async function main([command, ...args]: string[]): Promise<void> {
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  const config = loadConfig()
  if (command === 'start') return start(config, createLogger(config.LOG_LEVEL), args)
  if (command === 'dev') return dev(config, createLogger(config.LOG_LEVEL, { role: 'all' }), process.env)
  const operatorCommand = OPERATOR_COMMANDS[command]
  if (!operatorCommand) throw new UsageError(`unknown command: ${command}`)
  // Operator commands print their result; logs would only get in the way.
  const infra = await connectInfra(config, createLogger(process.env.LOG_LEVEL ?? 'warn', { role: 'cli' }))
  try {
    await operatorCommand(infra, args)
  } finally {
    await infra.close()
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(process.exitCode ?? 0),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`mats: ${err.message}\n\n${USAGE}\n`)
      process.exit(2)
    }
    if (err instanceof ConfigError || err instanceof DomainError) {
      process.stderr.write(`mats: ${err.message}\n`)
      process.exit(1)
    }
    process.stderr.write(`mats: ${err instanceof Error ? err.message : String(err)}\n`)
    if (process.env.LOG_LEVEL === 'debug' && err instanceof Error) process.stderr.write(`${err.stack}\n`)
    process.exit(1)
  },
)

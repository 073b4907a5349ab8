import { ConfigError, loadConfig } from '../config.js'
import { DomainError, InvalidInputError } from '../domain/errors.js'
import { UsageError, type OperatorAction } from './io.js'
import { didYouMean } from './suggest.js'
import { COMMAND_NAMES, COMMAND_USAGE, isCommandName, USAGE, type CommandName } from './usage.js'

// Each command loads only what it needs, when it runs: `mats --help` or a usage error reads
// no more than this file, and an operator command never loads the HTTP API or the worker.
type OperatorCommand = (args: string[]) => OperatorAction
const OPERATOR_COMMANDS: Partial<Record<CommandName, () => Promise<OperatorCommand>>> = {
  accounts: async () => (await import('./commands/accounts.js')).accounts,
  keys: async () => (await import('./commands/keys.js')).keys,
  sessions: async () => (await import('./commands/sessions.js')).sessions,
  projections: async () => (await import('./commands/projections.js')).projections,
  webhooks: async () => (await import('./commands/webhooks.js')).webhooks,
}

async function main([command, ...args]: string[]): Promise<void> {
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  if (!isCommandName(command)) throw new UsageError(`unknown command: ${command}${didYouMean(command, COMMAND_NAMES)}`)
  const config = loadConfig()
  if (command === 'start') return (await import('./commands/start.js')).start(config, args)
  if (command === 'dev') return (await import('./commands/dev.js')).dev(config, args, process.env)
  const loadCommand = OPERATOR_COMMANDS[command]
  if (!loadCommand) throw new UsageError(`unknown command: ${command}`)
  const action = (await loadCommand())(args)
  const { connectOperator } = await import('./connect.js')
  const infra = await connectOperator(config)
  try {
    await action(infra)
  } finally {
    await infra.close()
  }
}

/** Usage errors (and input the service refuses: what the operator typed) exit 2, every other failure 1. */
function fail(err: unknown, command: string | undefined): never {
  if (err instanceof UsageError || err instanceof InvalidInputError) {
    const usage = command !== undefined && isCommandName(command) ? `Usage:\n  ${COMMAND_USAGE[command].replaceAll('\n', '\n  ')}` : USAGE
    process.stderr.write(`mats: ${err.message}\n\n${usage}\n`)
    process.exit(2)
  }
  process.stderr.write(`mats: ${err instanceof Error ? err.message : String(err)}\n`)
  const expected = err instanceof ConfigError || err instanceof DomainError
  if (!expected && process.env.LOG_LEVEL === 'debug' && err instanceof Error) process.stderr.write(`${err.stack}\n`)
  process.exit(1)
}

const argv = process.argv.slice(2)
main(argv).then(
  () => process.exit(process.exitCode ?? 0),
  (err: unknown) => fail(err, argv[0]),
)

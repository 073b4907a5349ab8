import { AUTONOMY_LEVELS } from '../domain/sessions/autonomy.js'

/**
 * Every command's usage, apart from the commands themselves: `mats --help` and usage
 * errors print these without loading the service (the commands import all of it).
 */
export const COMMAND_USAGE = {
  start: 'mats start [--role api|worker|projector|webhooks|all]   (default all)',
  dev: 'mats dev [--attach]   (npm start: local NATS and MongoDB where none is configured, then every role)',
  accounts: `mats accounts create --name NAME [--monthly-budget USD] [--json]
mats accounts update ACCOUNT_ID --monthly-budget USD [--json]
mats accounts show ACCOUNT_ID [--json]`,
  keys: `mats keys create --account ACCOUNT_ID --name NAME [--expires-at ISO] [--json]
mats keys revoke KEY_ID [--reason TEXT] [--json]
mats keys list --account ACCOUNT_ID [--json]`,
  sessions: `mats sessions show SESSION_ID [--json]
mats sessions autonomy SESSION_ID ${AUTONOMY_LEVELS.join('|')} [--json]`,
  projections: `mats projections rebuild [--json]
mats projections status [--json]`,
  webhooks: 'mats webhooks reseal [--json]   (seal every webhook secret again under WEBHOOKS_SECRET_KEY)',
} as const

export type CommandName = keyof typeof COMMAND_USAGE
export const COMMAND_NAMES = Object.keys(COMMAND_USAGE) as CommandName[]

export const isCommandName = (name: string): name is CommandName => Object.hasOwn(COMMAND_USAGE, name)

export const USAGE = `Usage:
  ${Object.values(COMMAND_USAGE)
    .map((usage) => usage.replaceAll('\n', '\n  '))
    .join('\n  ')}

Usage errors exit with 2, other failures with 1.
Configuration comes from environment variables: see docs/configuration.md.`

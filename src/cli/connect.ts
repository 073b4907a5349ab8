import type { Config } from '../config.js'
import { connectApp, type AppContext } from '../app-context.js'
import { createLogger } from '../infra/logger.js'
import { unreachableMessage, UnreachableError } from './hints.js'

/** Operator commands print their result; logs would only get in the way. */
export async function connectOperator(config: Config): Promise<AppContext> {
  try {
    return await connectApp(config, createLogger(process.env.LOG_LEVEL ?? 'warn', { role: 'cli' }))
  } catch (err) {
    throw new UnreachableError(unreachableMessage(err, config))
  }
}

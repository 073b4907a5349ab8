import type { Test } from 'tap'
import { ConfigError, loadConfig } from '../../src/config.js'

/** The problems of a config that must not load; fails the test if it loads. */
export function problemsOf(t: Test, env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(env)
  } catch (err) {
    t.type(err, ConfigError)
    return err instanceof ConfigError ? err.problems : []
  }
  t.fail(`${JSON.stringify(env)} loaded`)
  return []
}

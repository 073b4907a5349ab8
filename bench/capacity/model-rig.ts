/**
 * The fake language-model server of the tests (test/fakes/model-server.ts), a real HTTP server
 * on loopback, in the bench's process, and the environment that points a mats worker at it.
 */
import { startFakeModelServer, type FakeModelServer, type ModelScript } from '../../test/fakes/model-server.js'
import { MODEL, PRICES, PROVIDER_KEY } from '../../test/helpers/language-models.js'
import type { Stoppers } from './servers.js'

export async function fakeModel(stoppers: Stoppers, script: ModelScript): Promise<{ fake: FakeModelServer; env: Record<string, string> }> {
  const closers: (() => void)[] = []
  stoppers.add({
    stop: async () => {
      for (const close of closers) close()
    },
  })
  const fake = await startFakeModelServer({ teardown: (fn) => closers.push(fn) }, 'openai', script)
  return { fake, env: { LLM_PROVIDER: 'openai', LLM_BASE_URL: fake.baseUrl, LLM_API_KEY: PROVIDER_KEY, LLM_MODEL: MODEL, LLM_PRICES: PRICES, LLM_MAX_RETRIES: '2' } }
}

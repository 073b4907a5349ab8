/**
 * The `api` role in a process of its own, so that the bench's browser driver, load clients and
 * projector do not take the event loop whose answers are measured.
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { benchService } from './harness.js'

type Start = { readonly natsUrl: string; readonly mongoUrl: string; readonly env: Record<string, string> }
type Answer = { readonly url: string } | { readonly failed: string }

export interface ApiApart {
  readonly url: string
  stop(): Promise<void>
}

export function apiApart(natsUrl: string, mongoUrl: string, env: Record<string, string>): Promise<ApiApart> {
  const child = fork(fileURLToPath(import.meta.url), ['--api'], { execArgv: ['--import', 'tsx'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return new Promise((resolve, reject) => {
    child.once('message', (answer: Answer) => {
      if ('failed' in answer) return reject(new Error(answer.failed))
      const stop = () => {
        child.send('stop')
        return exited
      }
      resolve({ url: answer.url, stop })
    })
    child.once('exit', (code) => reject(new Error(`api process exited with ${code}`)))
    child.send({ natsUrl, mongoUrl, env } satisfies Start)
  })
}

if (process.argv.includes('--api')) {
  // The bench that forked this process ended (or crashed): end too, not linger holding its output.
  process.once('disconnect', () => process.exit(1))
  process.once('message', async ({ natsUrl, mongoUrl, env }: Start) => {
    try {
      const service = await benchService(natsUrl, mongoUrl, env, ['api'])
      process.once('message', () => void service.stop().then(() => process.exit(0)))
      process.send?.({ url: service.url } satisfies Answer)
    } catch (err) {
      process.send?.({ failed: err instanceof Error ? err.message : String(err) } satisfies Answer, () => process.exit(1))
    }
  })
}

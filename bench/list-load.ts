/**
 * Clients that list an account's tasks back to back (each request as soon as the one before
 * answered), in a process of their own so that their parsing takes neither the service's event
 * loop nor the measuring one's. `stop()` ends them and answers how many requests they made and
 * each one's ms.
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'

type Start = { readonly baseUrl: string; readonly headers: Record<string, string>; readonly paths: readonly string[]; readonly clients: number }
type Done = { readonly ms: readonly number[]; readonly failed: number }

export interface ListLoad {
  stop(): Promise<Done & { readonly seconds: number }>
}

export async function listLoad(start: Start): Promise<ListLoad> {
  const child = fork(fileURLToPath(import.meta.url), ['--load'], { execArgv: ['--import', 'tsx'] })
  const began = performance.now()
  const started = new Promise<void>((resolve) => child.once('message', () => resolve()))
  child.send(start)
  await started
  return {
    stop: () =>
      new Promise((resolve) => {
        child.once('message', (done: Done) => resolve({ ...done, seconds: (performance.now() - began) / 1000 }))
        child.send('stop')
      }),
  }
}

if (process.argv.includes('--load')) {
  // The bench that forked this process ended (or crashed): end too, not linger holding its output.
  process.once('disconnect', () => process.exit(1))
  process.once('message', ({ baseUrl, headers, paths, clients }: Start) => {
    let going = true
    const ms: number[] = []
    let failed = 0
    const client = async (k: number) => {
      for (let i = k; going; i++) {
        const began = performance.now()
        const response = await fetch(`${baseUrl}${paths[i % paths.length]}`, { headers }).catch(() => undefined)
        await response?.arrayBuffer()
        if (response?.status === 200) ms.push(performance.now() - began)
        else failed++
      }
    }
    const running = Array.from({ length: clients }, (_, k) => client(k))
    process.send?.('started')
    process.once('message', async () => {
      going = false
      await Promise.all(running)
      process.send?.({ ms, failed } satisfies Done, () => process.exit(0))
    })
  })
}

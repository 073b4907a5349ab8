/**
 * The benchmark's HTTP clients run in a process of their own: in the service's process they
 * would take its event loop's time and make it look slower than it is.
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Burst } from './baselines.js'
import { getRate, matsBurst, postRate } from './mats.js'

type Job =
  | { readonly kind: 'post'; readonly args: Parameters<typeof postRate> }
  | { readonly kind: 'get'; readonly args: Parameters<typeof getRate> }
  | { readonly kind: 'burst'; readonly args: Parameters<typeof matsBurst> }

type Answer = { readonly measured: number | Burst } | { readonly failed: string }

function ask(job: Job): Promise<number | Burst> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--client'], { execArgv: ['--import', 'tsx'] })
    child.once('message', (answer: Answer) => ('measured' in answer ? resolve(answer.measured) : reject(new Error(answer.failed))))
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`client process exited with ${code}`))
    })
    child.send(job)
  })
}

export const postRateApart = (...args: Parameters<typeof postRate>) => ask({ kind: 'post', args }) as Promise<number>
export const getRateApart = (...args: Parameters<typeof getRate>) => ask({ kind: 'get', args }) as Promise<number>
export const burstApart = (...args: Parameters<typeof matsBurst>) => ask({ kind: 'burst', args }) as Promise<Burst>

async function run(job: Job): Promise<number | Burst> {
  switch (job.kind) {
    case 'post':
      return postRate(...job.args)
    case 'get':
      return getRate(...job.args)
    case 'burst':
      return matsBurst(...job.args)
  }
}

if (process.argv.includes('--client')) {
  process.once('message', (job: Job) => {
    run(job).then(
      (measured) => process.send?.({ measured } satisfies Answer, () => process.exit(0)),
      (err: unknown) => process.send?.({ failed: err instanceof Error ? err.message : String(err) } satisfies Answer, () => process.exit(0)),
    )
  })
}

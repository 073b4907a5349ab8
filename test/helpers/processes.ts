import { spawn, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import type { Test } from 'tap'

const MATS = resolve(import.meta.dirname, '../../bin/mats.js')

/** Runs the `mats` CLI as a separate process, as an operator would. */
export function spawnMats(t: Test, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [MATS, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  return child
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((done) => child.once('exit', (code) => done(code)))
}

export function collectOutput(child: ChildProcess): { text: () => string } {
  let out = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  return { text: () => out }
}

/**
 * How long a `mats start` process may take to say it has started. Most of it is loading the
 * sources through tsx: about 2 s on a quiet 2-core machine, and measured up to 49 s for a bare
 * `mats --help` (1.8 s of CPU) while that machine ran 7 other test suites and stress-ng. A
 * deadline after the start is then the product's, not the machine's.
 */
export const PROCESS_START_MS = 150_000

/**
 * Runs `mats start` with `args` in its own process, as spawnMats does, and resolves once it
 * logs "mats started" (it is given LOG_LEVEL info for that line); rejects with its output if
 * it exits first or takes longer than PROCESS_START_MS.
 */
export async function startMats(t: Test, args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const child = spawnMats(t, ['start', ...args], { ...env, LOG_LEVEL: 'info' })
  const output = collectOutput(child)
  const deadline = Date.now() + PROCESS_START_MS
  while (!output.text().includes('"msg":"mats started"')) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`mats start ${args.join(' ')} exited first: ${output.text().slice(-600)}`)
    if (Date.now() > deadline) throw new Error(`mats start ${args.join(' ')} did not start within ${PROCESS_START_MS} ms: ${output.text().slice(-600)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return child
}

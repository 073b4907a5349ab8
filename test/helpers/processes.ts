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

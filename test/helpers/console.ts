import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { honouringRetryAfter } from './retry-after.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const STAMP = join(ROOT, 'dist', 'console', '.built')

/** Builds dist/console (scripts/build-console.mjs) unless it is newer than every file of console/: the service reads it at start. */
export function ensureConsoleBuilt(): void {
  if (existsSync(STAMP) && newest(join(ROOT, 'console')) <= statSync(STAMP).mtimeMs) return
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-console.mjs')], { cwd: ROOT, stdio: 'inherit' })
}

function newest(dir: string): number {
  let at = statSync(dir).mtimeMs
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) at = Math.max(at, statSync(join(entry.parentPath, entry.name)).mtimeMs)
  return at
}

/** A console sign-in over plain HTTP, as the page does it: the cookie and the CSRF token it is given. */
export interface ConsoleSignIn {
  readonly status: number
  readonly setCookie: string | null
  readonly cookie: string
  readonly csrfToken: string
  readonly body: Record<string, unknown>
}

export async function signIn(baseUrl: string, apiKey: string, headers: Record<string, string> = { origin: baseUrl }): Promise<ConsoleSignIn> {
  const send = () => fetch(`${baseUrl}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ apiKey }) })
  const response = await honouringRetryAfter('POST /console/api/session', send)
  const body = (await response.json()) as Record<string, unknown>
  const setCookie = response.headers.get('set-cookie')
  return { status: response.status, setCookie, cookie: setCookie?.split(';')[0] ?? '', csrfToken: typeof body.csrfToken === 'string' ? body.csrfToken : '', body }
}

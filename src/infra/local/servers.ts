import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { createConnection } from 'node:net'
import { delimiter, dirname, join } from 'node:path'
import { freePort } from './free-port.js'

export { freePort }

/**
 * Starts the two servers mats needs as child processes: used by the test suite (random
 * loopback ports, temporary data) and by `mats dev` for a laptop (fixed ports, `.mats/`).
 */
export interface LocalServer {
  readonly url: string
  readonly port: number
  readonly process: ChildProcess
  stop(): Promise<void>
}

export class MissingBinaryError extends Error {
  override readonly name = 'MissingBinaryError'
}

const PROJECT_BIN = join(projectRoot(import.meta.dirname), '.mats', 'bin')

/** The nearest directory with a package.json: the same from src/ (tsx) and from dist/src/ (built). */
function projectRoot(from: string): string {
  let dir = from
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir)
  return dir
}

/** Project-local pinned builds first (scripts/install-servers.sh), then PATH. */
export function findBinary(name: string): string | null {
  const local = join(PROJECT_BIN, name)
  if (existsSync(local)) return local
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name)
    if (dir && existsSync(candidate)) return candidate
  }
  return null
}

function requireBinary(name: string): string {
  const found = findBinary(name)
  if (!found) throw new MissingBinaryError(`${name} not found in .mats/bin or on PATH: run scripts/install-servers.sh`)
  return found
}

export async function isListening(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ host, port })
    socket.once('connect', () => {
      socket.destroy()
      done(true)
    })
    socket.once('error', () => done(false))
  })
}

/** How much of a server's last output a failed start quotes: enough for its reason (a port in use, a bad config line). */
const OUTPUT_KEPT = 2000

/** What a server wrote last, once its output has ended (`closed`: after it exits, its last lines are still in the pipes). */
interface ServerOutput {
  readonly closed: Promise<void>
  readonly last: () => string
}

async function waitUntilListening(child: ChildProcess, name: string, port: number, timeoutMs: number, output: ServerOutput): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      await output.closed
      throw new Error(`${name} exited with code ${child.exitCode} before listening; its last output: ${output.last().trim() || '(none)'}`)
    }
    if (await isListening('127.0.0.1', port)) return
    await new Promise((r) => setTimeout(r, 50))
  }
  child.kill('SIGKILL')
  throw new Error(`${name} did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`)
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done()
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 5000)
      child.once('exit', () => {
        clearTimeout(killTimer)
        done()
      })
      child.kill('SIGTERM')
    })
}

export interface ServerOptions {
  readonly dataDir: string
  readonly port?: number
  readonly onOutput?: (line: string) => void
  /** Added to this process's environment for the server (e.g. variables its config file reads). */
  readonly env?: Readonly<Record<string, string>>
  /**
   * In a process group of its own, so that Ctrl-C at a terminal (sent to the whole
   * foreground group) does not stop the server under a mats still shutting down on it:
   * the caller stops it after (`mats dev`).
   */
  readonly ownProcessGroup?: boolean
}

async function launch(name: string, args: string[], port: number, opts: ServerOptions, url: string): Promise<LocalServer> {
  await mkdir(opts.dataDir, { recursive: true })
  const child = spawn(requireBinary(name), args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env }, detached: opts.ownProcessGroup === true })
  let lastOutput = ''
  const forward = (chunk: Buffer) => {
    const text = chunk.toString()
    lastOutput = (lastOutput + text).slice(-OUTPUT_KEPT)
    opts.onOutput?.(text)
  }
  child.stdout?.on('data', forward)
  child.stderr?.on('data', forward)
  await waitUntilListening(child, name, port, 15_000, { closed: new Promise((closed) => child.once('close', () => closed())), last: () => lastOutput })
  return { url, port, process: child, stop: stopper(child) }
}

export interface NatsOptions extends ServerOptions {
  /** Fsync every write before acknowledging it (`sync_interval: always`), as production should. */
  readonly syncAlways?: boolean
  /** More nats-server configuration (e.g. `tls { … }`, `authorization { … }`); address, port and store stay ours. */
  readonly config?: string
  /**
   * Command-line options instead of `-js -sd <dataDir>` (e.g. `-c <file>`, `--routes …`): with them the
   * caller's configuration turns JetStream on and names its store (nats-server refuses a second store_dir).
   */
  readonly args?: readonly string[]
}

export async function startNats(opts: NatsOptions): Promise<LocalServer> {
  const port = opts.port ?? (await freePort())
  const args = ['-a', '127.0.0.1', '-p', String(port), ...(opts.args ?? ['-js', '-sd', opts.dataDir])]
  const config = [opts.syncAlways ? 'jetstream {\n  sync_interval: always\n}' : '', opts.config ?? ''].filter((part) => part !== '')
  if (config.length > 0) {
    const file = join(opts.dataDir, 'nats-server.conf')
    await mkdir(opts.dataDir, { recursive: true })
    await writeFile(file, `${config.join('\n')}\n`)
    args.push('-c', file)
  }
  return launch('nats-server', args, port, opts, `nats://127.0.0.1:${port}`)
}

/** `mongod` where it is installed, otherwise FerretDB on SQLite. */
export async function startMongo(opts: ServerOptions & { database: string }): Promise<LocalServer> {
  const port = opts.port ?? (await freePort())
  const url = `mongodb://127.0.0.1:${port}/${opts.database}`
  if (findBinary('mongod')) {
    return launch('mongod', ['--bind_ip', '127.0.0.1', '--port', String(port), '--dbpath', opts.dataDir, '--quiet'], port, opts, url)
  }
  const args = [
    '--handler=sqlite',
    `--sqlite-url=file:${opts.dataDir}/`,
    `--listen-addr=127.0.0.1:${port}`,
    '--telemetry=disable',
    '--log-level=error',
    // Its debug HTTP listener defaults to :8088, which would collide between test servers.
    '--debug-addr=-',
    `--state-dir=${opts.dataDir}`,
  ]
  return launch('ferretdb', args, port, opts, url)
}

export interface LocalCluster {
  /** Every node's client URL, comma-separated, as NATS_URL takes them. */
  readonly url: string
  /** Each node, with the configuration file it was started from (to start it again after a kill). */
  readonly nodes: readonly (LocalServer & { readonly name: string; readonly configFile: string })[]
  stop(): Promise<void>
}

/**
 * Three (or `size`) nats-servers routed into one JetStream cluster on loopback: the
 * production topology (docs/operations.md), for the fault tests. Resolves once they listen;
 * the caller waits for a meta leader before creating streams.
 */
export async function startNatsCluster(opts: NatsOptions & { size?: number }): Promise<LocalCluster> {
  const size = opts.size ?? 3
  const ports: { client: number; route: number }[] = []
  for (let i = 0; i < size; i++) ports.push({ client: await freePort(), route: await freePort() })
  const routes = ports.map((p) => `nats-route://127.0.0.1:${p.route}`).join(', ')
  const nodes = await Promise.all(
    ports.map(async (p, i) => {
      const name = `n${i + 1}`
      const dir = join(opts.dataDir, name)
      await mkdir(dir, { recursive: true })
      const config = join(dir, 'nats-server.conf')
      await writeFile(
        config,
        [
          `server_name: ${name}`,
          `listen: 127.0.0.1:${p.client}`,
          `jetstream { store_dir: "${dir}"${opts.syncAlways ? ', sync_interval: always' : ''} }`,
          `cluster { name: mats, listen: 127.0.0.1:${p.route}, routes: [${routes}] }`,
        ].join('\n'),
      )
      const server = await launch('nats-server', ['-c', config], p.client, { ...opts, dataDir: dir }, `nats://127.0.0.1:${p.client}`)
      return { ...server, name, configFile: config }
    }),
  )
  return {
    url: nodes.map((n) => n.url).join(','),
    nodes,
    stop: async () => {
      await Promise.all(nodes.map((n) => n.stop()))
    },
  }
}

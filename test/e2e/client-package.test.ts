import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { aCaller } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'

const ROOT = resolve(import.meta.dirname, '../..')
const CONSUMER = join(ROOT, 'test/fixtures/client-consumer')
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc')
const execFileAsync = promisify(execFile)

/**
 * Runs a command as a person would in a shell: npm and node of the Node running the tests,
 * and none of the npm_* variables an enclosing `npm test` sets (npm_config_local_prefix would
 * point a nested npm back at this repository). Generous timeout: a loaded machine.
 */
async function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')))
  env.PATH = `${dirname(process.execPath)}${delimiter}${env.PATH ?? ''}`
  try {
    const { stdout } = await execFileAsync(command, args, { cwd: options.cwd, env: { ...env, ...options.env }, timeout: 150_000, maxBuffer: 16 * 1024 * 1024 })
    return stdout
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${options.cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`)
  }
}

interface PackedFile {
  readonly path: string
}

/** What test/fixtures/client-consumer/consumer.mjs prints. */
interface ConsumerOutput {
  session: { status: number; id: string; name: string; autonomy: string }
  created: { status: number; location: string | null; task: { id: string } & Record<string, unknown> }
  read: { status: number; task: Record<string, unknown> }
  refused: { status: number; code: string }
}

const servers = await startServers(t)
const service = await startTestService(t, servers, { env: { OFFLINE_AGENT_LATENCY_MS: '0' } })
const work = await mkdtemp(join(tmpdir(), 'mats-client-package-'))
t.teardown(() => rm(work, { recursive: true, force: true }))

// Given the workspace packed as it would be published (prepack builds dist/)
const packed = JSON.parse(await run('npm', ['pack', '--workspace', '@mats/client', '--pack-destination', work, '--json'], { cwd: ROOT })) as { filename: string; files: PackedFile[] }[]
const tarball = join(work, packed[0]?.filename ?? 'no tarball')

// and a fresh project outside the repository that installs the tarball
const project = join(work, 'consumer')
await mkdir(project)
await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'mats-client-consumer', version: '1.0.0', private: true, type: 'module' }, null, 2))
await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: project })
for (const file of ['consumer.mjs', 'consumer.cjs', 'consumer.ts', 'tsconfig.json']) await copyFile(join(CONSUMER, file), join(project, file))

t.test('given npm pack of the workspace, then the tarball holds the built JavaScript, its declarations and the generated types', async (t) => {
  const files = packed[0]?.files.map((file) => file.path) ?? []
  for (const file of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/schema.d.ts', 'src/index.ts']) t.ok(files.includes(file), `${file} is packed`)
  t.same(files.filter((file) => !file.startsWith('dist/') && !file.startsWith('src/')).sort(), ['README.md', 'package.json'], 'and no build script, tsconfig or test')
})

t.test('given the installed tarball, when an ES module script uses it against the running service, then it creates a session and a task, typed answers and errors included', async (t) => {
  const { key } = await aCaller(service.infra, service.url)
  const printed = JSON.parse(await run(process.execPath, ['consumer.mjs'], { cwd: project, env: { MATS_URL: service.url, MATS_KEY: key.key } })) as ConsumerOutput

  t.match(printed.session, { status: 201, name: 'From a packed client', autonomy: 'draft-only' }, 'POST /sessions')
  t.match(printed.created, { status: 201, task: { sessionId: printed.session.id, agentType: 'seo', status: 'completed', instruction: 'Audit the blog titles' } }, 'POST /tasks, held until it ended')
  t.equal(printed.created.location, `/v1/tasks/${printed.created.task.id}`)
  t.same(printed.read, { status: 200, task: printed.created.task }, 'GET /tasks/{taskId} reads the same task')
  t.same(printed.refused, { status: 401, code: 'unauthenticated' }, 'a made-up key: the typed error')
})

t.test('given the installed tarball, when a CommonJS script requires it, then it gets the same client', async (t) => {
  const printed = JSON.parse(await run(process.execPath, ['consumer.cjs'], { cwd: project }))
  t.same(printed, { createMatsClient: 'function', GET: 'function', POST: 'function' })
})

t.test('given the installed tarball, when tsc checks a TypeScript file using it, then its calls check and the wrong ones are refused', async (t) => {
  // consumer.ts marks two wrong calls with @ts-expect-error: untyped (any) declarations would fail this.
  const output = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project })
  t.equal(output, '', 'tsc --noEmit reports nothing')
})

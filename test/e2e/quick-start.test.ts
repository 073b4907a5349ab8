import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import t from 'tap'
import { freePort, isListening } from '../../src/infra/local/servers.js'
import { ApiClient } from '../helpers/http.js'
import { collectOutput, exited, spawnMats } from '../helpers/processes.js'
import { until } from '../helpers/wait.js'

const ROOT = resolve(import.meta.dirname, '../..')

t.test('npm start, then the README steps, reach a 200 from GET /v1/agents; Ctrl-C stops everything', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mats-quickstart-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const [port, natsPort, mongoPort] = [await freePort(), await freePort(), await freePort()]
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DEV_DATA_DIR: dir, DEV_NATS_PORT: String(natsPort), DEV_MONGODB_PORT: String(mongoPort), LOG_LEVEL: 'warn' }
  delete env.NATS_URL
  delete env.MONGODB_URL

  // `npm start` is `node scripts/start.mjs`; its own process group, as a terminal gives it.
  const start = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs')], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => { if (start.exitCode === null) process.kill(-start.pid!, 'SIGKILL') })
  const output = collectOutput(start)
  await until('the start banner', () => output.text().includes('mats is running at'), 60_000)
  t.match(output.text(), `http://127.0.0.1:${port}/v1`, 'prints the base URL')
  t.match(output.text(), /npx mats accounts create/, 'prints the next step')

  const cli = { NATS_URL: `nats://127.0.0.1:${natsPort}`, MONGODB_URL: `mongodb://127.0.0.1:${mongoPort}/mats` }
  const run = async (args: string[]) => {
    const child = spawnMats(t, args, cli)
    const out = collectOutput(child)
    t.equal(await exited(child), 0, `mats ${args.join(' ')} exits 0`)
    return JSON.parse(out.text()) as Record<string, string>
  }
  const account = await run(['accounts', 'create', '--name', 'Acme', '--json'])
  const key = await run(['keys', 'create', '--account', account.id!, '--name', 'laptop', '--json'])
  t.match(key.key, /^mats_/)

  const agents = await new ApiClient(`http://127.0.0.1:${port}`, key.key!).get<{ agents: unknown[] }>('/v1/agents')
  t.equal(agents.status, 200)
  t.equal(agents.body.agents.length, 10)

  process.kill(-start.pid!, 'SIGINT')
  t.equal(await exited(start), 0, 'Ctrl-C exits 0', { output: output.text().slice(-3000) })
  t.notOk(await isListening('127.0.0.1', port), 'the API stopped')
  t.notOk(await isListening('127.0.0.1', natsPort), 'the nats-server it started stopped')
  t.notOk(await isListening('127.0.0.1', mongoPort), 'the MongoDB-wire server it started stopped')
})

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import t from 'tap'
import { freePort, isListening } from '../../src/infra/local/servers.js'
import { ApiClient } from '../helpers/http.js'
import { collectOutput, exited, spawnMats } from '../helpers/processes.js'
import { until } from '../helpers/wait.js'

const ROOT = resolve(import.meta.dirname, '../..')
// Room for a tsc build of dist/ on a busy machine, then the whole quick start.
t.setTimeout(480_000)

function newcomerEnv(ports: { port: number; natsPort: number; mongoPort: number }, dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(ports.port), DEV_DATA_DIR: dir, DEV_NATS_PORT: String(ports.natsPort), DEV_MONGODB_PORT: String(ports.mongoPort), LOG_LEVEL: 'warn' }
  delete env.NATS_URL
  delete env.MONGODB_URL
  delete env.DEV_ATTACH
  return env
}

t.test('npm start, then the README steps, reach a 200 from GET /v1/agents and a 201 from POST /v1/webhooks; Ctrl-C stops everything quietly', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mats-quickstart-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const [port, natsPort, mongoPort] = [await freePort(), await freePort(), await freePort()]
  const env = newcomerEnv({ port, natsPort, mongoPort }, dir)

  // `npm start` is `node scripts/start.mjs`; its own process group, as a terminal gives it.
  const start = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs')], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => {
    if (start.exitCode === null) process.kill(-start.pid!, 'SIGKILL')
  })
  const output = collectOutput(start)
  // The first run may compile dist/ before starting: tsc took 88 to 148 s on 2 busy cores (README);
  // the wait for the banner ran out at 90 s at load average 24, so it is sized for that: a deadline, not a bound.
  const startedAt = Date.now()
  await until('the start banner', () => output.text().includes('mats is running at'), 360_000, 100)
  t.comment(`npm start printed its banner after ${Date.now() - startedAt} ms`)
  t.match(output.text(), `http://127.0.0.1:${port}/v1`, 'prints the base URL')
  t.match(output.text(), `NATS:    nats://127.0.0.1:${natsPort}   started by mats, data in ${dir}/nats`, 'says it started NATS, and where its data is')
  t.match(output.text(), `MongoDB: mongodb://127.0.0.1:${mongoPort}/mats   started by mats, data in ${dir}/mongo`, 'says it started MongoDB, and where its data is')
  t.match(output.text(), `export NATS_URL=nats://127.0.0.1:${natsPort} MONGODB_URL=mongodb://127.0.0.1:${mongoPort}/mats`, 'tells the CLI where the moved servers are')
  t.match(output.text(), /npx mats accounts create/, 'prints the next step')
  const keyFile = join(dir, 'webhooks-secret-key')
  t.match(output.text(), `Webhooks: on, key generated now into ${keyFile}, receivers on localhost allowed`, 'says webhooks are on, and where their key is')
  t.equal((await stat(keyFile)).mode & 0o777, 0o600, 'the key is readable by this user only')

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
  const webhook = await new ApiClient(`http://127.0.0.1:${port}`, key.key!).post<{ secret: string }>('/v1/webhooks', { url: `http://127.0.0.1:${await freePort()}/hooks` })
  t.equal(webhook.status, 201, 'POST /v1/webhooks answers 201', { body: webhook.body })

  const beforeCtrlC = output.text().length
  process.kill(-start.pid!, 'SIGINT')
  t.equal(await exited(start), 0, 'Ctrl-C exits 0', { output: output.text().slice(-3000) })
  const stopping = output.text().slice(beforeCtrlC)
  t.notMatch(stopping, /\n\s+at /, 'no stack trace', { stopping })
  t.notMatch(stopping, /"level":(40|50|60)/, 'no warning nor error logged while stopping', { stopping })
  t.notOk(await isListening('127.0.0.1', port), 'the API stopped')
  t.notOk(await isListening('127.0.0.1', natsPort), 'the nats-server it started stopped')
  t.notOk(await isListening('127.0.0.1', mongoPort), 'the MongoDB-wire server it started stopped')
})

t.test('given a server it did not start on its NATS port, npm start refuses to use it and says how to', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mats-quickstart-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const someoneElses = createServer().listen(0, '127.0.0.1')
  await once(someoneElses, 'listening')
  t.teardown(() => someoneElses.close())
  const natsPort = (someoneElses.address() as AddressInfo).port
  const env = newcomerEnv({ port: await freePort(), natsPort, mongoPort: await freePort() }, dir)

  const start = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => {
    if (start.exitCode === null) start.kill('SIGKILL')
  })
  const output = collectOutput(start)
  t.equal(await exited(start), 1, 'exits 1', { output: output.text().slice(-3000) })
  t.match(output.text(), `mats: something already listens on 127.0.0.1:${natsPort} (DEV_NATS_PORT) and mats did not start it`)
  t.match(output.text(), 'DEV_ATTACH=true npm start   (or: npm start -- --attach)', 'names how to use it anyway')
  t.match(output.text(), /PORT=\d+ DEV_NATS_PORT=\d+ DEV_MONGODB_PORT=\d+ npm start/, 'names free ports to use instead')
  t.notMatch(output.text(), 'mats is running', 'starts nothing')
})

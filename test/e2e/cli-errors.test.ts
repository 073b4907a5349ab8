import type { Test } from 'tap'
import t from 'tap'
import { freePort } from '../../src/infra/local/servers.js'
import { collectOutput, exited, spawnMats } from '../helpers/processes.js'

// No servers run here: usage errors must be found before connecting, and a server that
// does not answer must be named.
async function mats(t: Test, args: string[], env: Record<string, string> = {}) {
  const child = spawnMats(t, args, env)
  const output = collectOutput(child)
  return { code: await exited(child), text: output.text() }
}

t.test('given a mistyped option, mats names it, suggests the right one and exits 2', async (t) => {
  const { code, text } = await mats(t, ['accounts', 'create', '--nmae', 'Acme'])
  t.equal(code, 2)
  t.match(text, /^mats: unknown option --nmae; did you mean --name\?\n/)
  t.match(text, /mats accounts create --name NAME/, 'prints the usage of that command')
})

t.test('given a mistyped command, mats suggests the nearest and exits 2', async (t) => {
  const { code, text } = await mats(t, ['acounts', 'show'])
  t.equal(code, 2)
  t.match(text, /^mats: unknown command: acounts; did you mean accounts\?/)
})

t.test('given a budget that is not an amount, mats exits 2 as for any usage error', async (t) => {
  const { code, text } = await mats(t, ['accounts', 'create', '--name', 'Acme', '--monthly-budget', 'abc'])
  t.equal(code, 2)
  t.match(text, /--monthly-budget: must be a non-negative amount in USD \(got "abc"\)/)
})

t.test('given no NATS server at NATS_URL, mats names the URL and the variable, and exits 1', async (t) => {
  const port = await freePort()
  const { code, text } = await mats(t, ['projections', 'status'], { NATS_URL: `nats://127.0.0.1:${port}`, MONGODB_URL: 'mongodb://127.0.0.1:1/mats' })
  t.equal(code, 1)
  t.match(text, `mats: cannot reach NATS at nats://127.0.0.1:${port}`)
  t.match(text, /Set NATS_URL to the server of the running mats/)
})

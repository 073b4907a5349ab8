import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { DEV_KEY_FILE, devWebhooksKey } from '../../src/cli/dev-webhooks-key.js'

t.test('given no key yet, mats dev generates one, and later runs read the same one', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mats-devkey-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const first = await devWebhooksKey(join(dir, 'data'))
  t.equal(first.generated, true)
  t.equal(Buffer.from(first.key, 'base64').length, 32, '32 random bytes, base64')
  const second = await devWebhooksKey(join(dir, 'data'))
  t.same(second, { key: first.key, file: first.file, generated: false })
})

t.test('given a key file that is not a key, mats dev names the file and how to fix it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'mats-devkey-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, DEV_KEY_FILE), 'not a key\n')
  await t.rejects(devWebhooksKey(dir), {
    name: 'ConfigError',
    message: `invalid configuration: ${join(dir, DEV_KEY_FILE)}: not a base64 key of 32 bytes; delete it to have a new one generated (webhooks registered with the old one then need registering again)`,
  })
})

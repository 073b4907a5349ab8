import t from 'tap'
import { Webhook as Verifier } from 'standardwebhooks'
import { ConflictError, InvalidInputError, NotFoundError } from '../../src/domain/errors.js'
import { retryDelayMs, shouldGiveUp } from '../../src/domain/webhooks/backoff.js'
import { generateWebhookSecret, signatureHeaders } from '../../src/domain/webhooks/signing.js'
import { decideDeleteWebhook, decideRegisterWebhook, MAX_WEBHOOKS_PER_ACCOUNT } from '../../src/domain/webhooks/webhook.js'
import { SecretBox } from '../../src/infra/crypto/secret-box.js'
import { aSecretKey } from '../helpers/webhooks.js'

t.test('signatures verify with the standardwebhooks reference library, and only for the bytes signed', async (t) => {
  const secret = generateWebhookSecret()
  const body = JSON.stringify({ type: 'task.completed', timestamp: new Date().toISOString(), data: { task: { id: 'x' } } })
  const headers = signatureHeaders([secret], 'evt-1', new Date(), body)
  t.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/)
  t.same(new Verifier(secret).verify(body, headers), JSON.parse(body))
  t.throws(() => new Verifier(secret).verify(`${body} `, headers), 'another body does not verify')
  t.throws(() => new Verifier(generateWebhookSecret()).verify(body, headers), 'another secret does not verify')
})

t.test('retry waits double from the base, lose at most a quarter to jitter, stop growing at the cap', async (t) => {
  const policy = { baseMs: 1000, maxMs: 10_000, windowMs: 86_400_000 }
  t.same(
    [1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n, () => 0)),
    [1000, 2000, 4000, 8000, 10_000],
  )
  t.same(
    [1, 2, 3].map((n) => retryDelayMs(policy, n, () => 1)),
    [750, 1500, 3000],
    'the most jitter takes off a quarter',
  )
  for (let n = 1; n < 4; n++) t.ok(retryDelayMs(policy, n + 1, () => 1) > retryDelayMs(policy, n, () => 0), `wait ${n + 1} is always longer than wait ${n}`)
  t.equal(
    retryDelayMs(policy, 1000, () => 0),
    10_000,
    'no overflow after many attempts',
  )
  t.notOk(shouldGiveUp(policy, 0, 86_399_999))
  t.ok(shouldGiveUp(policy, 0, 86_400_000), 'given up only once the whole window has passed')
})

t.test('sealed secrets open with the key they were sealed under, also after a key change, and never when altered', async (t) => {
  const [oldKey, newKey] = [aSecretKey(), aSecretKey()]
  const sealed = new SecretBox(oldKey).seal('whsec_abc')
  t.notOk(sealed.includes('abc'))
  t.equal(new SecretBox(newKey, [oldKey]).open(sealed), 'whsec_abc', 'a previous key still opens what it sealed')
  t.throws(() => new SecretBox(newKey).open(sealed), /WEBHOOKS_PREVIOUS_SECRET_KEYS/, 'a forgotten key is named as the cause')
  const parts = sealed.split('.')
  parts[3] = Buffer.from('tampered').toString('base64url')
  t.throws(() => new SecretBox(oldKey).open(parts.join('.')), 'GCM refuses altered ciphertext')
  t.not(new SecretBox(oldKey).seal('same'), new SecretBox(oldKey).seal('same'), 'a fresh IV every time')
})

t.test('registering and deleting, decided on the state', async (t) => {
  const command = { url: 'https://example.com/hook', events: undefined, encryptedSecret: 'v1.x', activeWebhooks: 0 }
  const secrets = { encryptedSecret: 'v1.x', previous: [] }
  const [registered] = decideRegisterWebhook(command, { status: 'absent' })
  t.same(registered?.data, { url: 'https://example.com/hook', events: ['task.created', 'task.started', 'task.completed', 'task.failed'], encryptedSecret: 'v1.x' })
  t.throws(() => decideRegisterWebhook({ ...command, activeWebhooks: MAX_WEBHOOKS_PER_ACCOUNT }, { status: 'absent' }), ConflictError)
  t.throws(() => decideRegisterWebhook({ ...command, url: 'mailto:a@b.c' }, { status: 'absent' }), InvalidInputError)
  t.throws(() => decideRegisterWebhook({ ...command, url: 'https://example.com/#x' }, { status: 'absent' }), InvalidInputError)
  t.same(
    decideDeleteWebhook({ status: 'active', url: command.url, secrets }).map((e) => e.type),
    ['WebhookDeleted'],
  )
  t.throws(() => decideDeleteWebhook({ status: 'deleted', url: command.url, secrets }), NotFoundError)
  t.throws(() => decideDeleteWebhook({ status: 'absent' }), NotFoundError)
})

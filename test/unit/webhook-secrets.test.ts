import t from 'tap'
import { Webhook as Verifier } from 'standardwebhooks'
import { NotFoundError } from '../../src/domain/errors.js'
import { decideResealSecret, decideRotateSecret, PREVIOUS_SECRET_VALID_MS, secretsToSignWith } from '../../src/domain/webhooks/secrets.js'
import { generateWebhookSecret, signatureHeaders } from '../../src/domain/webhooks/signing.js'
import { Webhook, type WebhookEvent, type WebhookState } from '../../src/domain/webhooks/webhook.js'
import { SecretBox } from '../../src/infra/crypto/secret-box.js'
import { aSecretKey } from '../helpers/webhooks.js'

const registered = (encryptedSecret: string): WebhookState =>
  Webhook.evolve(Webhook.initialState, { type: 'WebhookRegistered', data: { url: 'https://example.com/hook', events: ['task.created'], encryptedSecret } })
const after = (state: WebhookState, events: readonly WebhookEvent[]) => events.reduce((s, e) => Webhook.evolve(s, e), state)
const secretsOf = (state: WebhookState) => (state.status === 'absent' ? null : state.secrets)

t.test('signed with two secrets, a delivery verifies with either in the standardwebhooks library, and with no other', async (t) => {
  const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()]
  const body = JSON.stringify({ type: 'task.created', timestamp: new Date().toISOString(), data: { task: { id: 'x' } } })
  const headers = signatureHeaders([newSecret, oldSecret], 'evt-1', new Date(), body)
  t.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/, 'two v1 signatures, space separated')
  t.same(new Verifier(newSecret).verify(body, headers), JSON.parse(body), 'the new secret verifies')
  t.same(new Verifier(oldSecret).verify(body, headers), JSON.parse(body), 'the old secret verifies')
  t.throws(() => new Verifier(generateWebhookSecret()).verify(body, headers), 'a third secret does not')
})

t.test('a rotation keeps the replaced secret signing for 24 h, then only the new one', async (t) => {
  const now = new Date('2026-11-25T10:00:00Z')
  const [rotated] = decideRotateSecret(registered('sealed-old'), { encryptedSecret: 'sealed-new', now })
  t.same(rotated, { type: 'WebhookSecretRotated', data: { encryptedSecret: 'sealed-new', previousValidUntil: '2026-11-26T10:00:00.000Z' } })
  const secrets = secretsOf(after(registered('sealed-old'), [rotated!]))!
  t.same(secretsToSignWith(secrets, now), ['sealed-new', 'sealed-old'], 'the new one first, then the old')
  t.same(secretsToSignWith(secrets, new Date(now.getTime() + PREVIOUS_SECRET_VALID_MS - 1)), ['sealed-new', 'sealed-old'], 'a millisecond before the 24 h are over')
  t.same(secretsToSignWith(secrets, new Date(now.getTime() + PREVIOUS_SECRET_VALID_MS)), ['sealed-new'], 'from then on, only the new one')
  t.same(secretsToSignWith({ encryptedSecret: 'sealed' }, now), ['sealed'], 'a read-model document from before rotation existed')

  const [again] = decideRotateSecret(after(registered('sealed-old'), [rotated!]), { encryptedSecret: 'sealed-third', now })
  t.same(secretsToSignWith(secretsOf(after(registered('sealed-old'), [rotated!, again!]))!, now), ['sealed-third', 'sealed-new'], 'rotating again replaces the older secret at once')
})

t.test('only an active webhook is rotated', async (t) => {
  const now = new Date()
  t.throws(() => decideRotateSecret(Webhook.initialState, { encryptedSecret: 'x', now }), NotFoundError)
  t.throws(() => decideRotateSecret(after(registered('x'), [{ type: 'WebhookDeleted', data: {} }]), { encryptedSecret: 'y', now }), NotFoundError)
})

t.test('resealing moves every secret in use under the current key, keeps what they open to, and appends nothing when run again', async (t) => {
  const [oldKey, newKey] = [aSecretKey(), aSecretKey()]
  const before = new SecretBox(oldKey)
  const box = new SecretBox(newKey, [oldKey])
  const now = new Date()
  const command = { now, isCurrent: (s: string) => box.isCurrent(s), reseal: (s: string) => box.reseal(s) }
  const rotatedState = after(registered(before.seal('whsec_first')), decideRotateSecret(registered(before.seal('whsec_first')), { encryptedSecret: before.seal('whsec_second'), now }))

  const resealed = decideResealSecret(rotatedState, command)
  t.same(
    resealed.map((e) => e.type),
    ['WebhookSecretResealed'],
  )
  const secrets = secretsOf(after(rotatedState, resealed))!
  t.same(
    secretsToSignWith(secrets, now).map((s) => new SecretBox(newKey).open(s)),
    ['whsec_second', 'whsec_first'],
    'both open with the new key alone, to the same secrets',
  )
  t.equal(secrets.previous?.validUntil, secretsOf(rotatedState)?.previous?.validUntil, 'the old secret still ends when it did')
  t.same(decideResealSecret(after(rotatedState, resealed), command), [], 'run again: nothing to do')
  t.same(decideResealSecret(after(rotatedState, [{ type: 'WebhookDeleted', data: {} }]), command), [], 'a deleted webhook is left alone')

  const dayLater = { ...command, now: new Date(now.getTime() + PREVIOUS_SECRET_VALID_MS) }
  const [late] = decideResealSecret(rotatedState, dayLater)
  t.same(late?.type === 'WebhookSecretResealed' && late.data.previousEncryptedSecret, null, 'an old secret whose 24 h are over is not sealed again')
  t.same(decideResealSecret(registered(box.seal('whsec_x')), command), [], 'a secret already under the current key is left alone')
})

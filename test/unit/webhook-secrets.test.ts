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
  t.same(rotated, { type: 'WebhookSecretRotated', data: { encryptedSecret: 'sealed-new', previousValidUntil: '2026-11-26T10:00:00.000Z', previousKept: 1 } })
  const secrets = secretsOf(after(registered('sealed-old'), [rotated!]))!
  t.same(secretsToSignWith(secrets, now), ['sealed-new', 'sealed-old'], 'the new one first, then the old')
  t.same(secretsToSignWith(secrets, new Date(now.getTime() + PREVIOUS_SECRET_VALID_MS - 1)), ['sealed-new', 'sealed-old'], 'a millisecond before the 24 h are over')
  t.same(secretsToSignWith(secrets, new Date(now.getTime() + PREVIOUS_SECRET_VALID_MS)), ['sealed-new'], 'from then on, only the new one')
  t.same(secretsToSignWith({ encryptedSecret: 'sealed' }, now), ['sealed'], 'a read-model document from before rotation existed')
  t.same(secretsToSignWith({ encryptedSecret: 'sealed', previous: { encryptedSecret: 'old', validUntil: '2026-11-26T10:00:00.000Z' } }, now), ['sealed', 'old'], 'one from before several were kept')

  const [again] = decideRotateSecret(after(registered('sealed-old'), [rotated!]), { encryptedSecret: 'sealed-third', now })
  t.same(secretsToSignWith(secretsOf(after(registered('sealed-old'), [rotated!, again!]))!, now), ['sealed-third', 'sealed-new'], 'rotating again replaces the older secret at once')
})

t.test('with previousKept 3, three replaced secrets keep signing, each until its own 24 h end; a fourth rotation drops the oldest; the setting is bounded', async (t) => {
  // Given four rotations an hour apart, keeping 3
  const hour = 3_600_000
  const start = Date.parse('2026-11-25T10:00:00Z')
  let state = registered('s0')
  for (let i = 1; i <= 4; i++) state = after(state, decideRotateSecret(state, { encryptedSecret: `s${i}`, now: new Date(start + i * hour), previousKept: 3 }))
  const secrets = secretsOf(state)!

  // Then
  t.same(secretsToSignWith(secrets, new Date(start + 4 * hour)), ['s4', 's3', 's2', 's1'], 'the newest, then the last three replaced, newest first; s0 dropped by the fourth rotation')
  t.same(secretsToSignWith(secrets, new Date(start + 2 * hour + PREVIOUS_SECRET_VALID_MS)), ['s4', 's3', 's2'], 's1 ends 24 h after the rotation that replaced it')
  t.same(secretsToSignWith(secrets, new Date(start + 4 * hour + PREVIOUS_SECRET_VALID_MS)), ['s4'], 'a day after the last rotation, only the newest')
  const keptOf = (previousKept: number) => {
    const [event] = decideRotateSecret(registered('x'), { encryptedSecret: 'y', now: new Date(start), previousKept })
    return event?.type === 'WebhookSecretRotated' ? event.data.previousKept : null
  }
  t.same([keptOf(0), keptOf(2), keptOf(99)], [1, 2, 3], 'kept between 1 and 3 whatever is asked')
})

t.test('resealing with several previous secrets seals again those still in use, in order, and drops the expired', async (t) => {
  const [oldKey, newKey] = [aSecretKey(), aSecretKey()]
  const before = new SecretBox(oldKey)
  const box = new SecretBox(newKey, [oldKey])
  const start = Date.parse('2026-11-25T10:00:00Z')
  let state = registered(before.seal('whsec_0'))
  for (let i = 1; i <= 3; i++) state = after(state, decideRotateSecret(state, { encryptedSecret: before.seal(`whsec_${i}`), now: new Date(start + i * 12 * 3_600_000), previousKept: 3 }))
  // When resealed 40 h after the start: whsec_0 (replaced at 12 h) has ended, whsec_1 and whsec_2 still sign
  const now = new Date(start + 40 * 3_600_000)
  const resealed = decideResealSecret(state, { now, isCurrent: (s) => box.isCurrent(s), reseal: (s) => box.reseal(s) })
  const secrets = secretsOf(after(state, resealed))!
  t.same(
    secretsToSignWith(secrets, now).map((s) => new SecretBox(newKey).open(s)),
    ['whsec_3', 'whsec_2', 'whsec_1'],
    'opened with the new key alone',
  )
  t.equal(secrets.previous.length, 2, 'the expired one is gone')
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
  t.equal(secrets.previous[0]?.validUntil, secretsOf(rotatedState)?.previous[0]?.validUntil, 'the old secret still ends when it did')
  t.same(decideResealSecret(after(rotatedState, resealed), command), [], 'run again: nothing to do')
  t.same(decideResealSecret(after(rotatedState, [{ type: 'WebhookDeleted', data: {} }]), command), [], 'a deleted webhook is left alone')

  const dayLater = { ...command, now: new Date(now.getTime() + PREVIOUS_SECRET_VALID_MS) }
  const [late] = decideResealSecret(rotatedState, dayLater)
  t.same(late?.type === 'WebhookSecretResealed' && late.data.previousEncryptedSecret, null, 'an old secret whose 24 h are over is not sealed again')
  t.same(decideResealSecret(registered(box.seal('whsec_x')), command), [], 'a secret already under the current key is left alone')
})

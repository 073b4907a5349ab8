import { readFileSync } from 'node:fs'
import t from 'tap'
import { EVENT_REGISTRY } from '../../src/domain/events/registry.js'
import { renderAsyncApi } from '../../src/docs/asyncapi.js'

/** The channel of each category is `<name>Events`. */
const CHANNEL_NAMES: Readonly<Record<string, string>> = { apikey: 'apiKey' }
const committed = readFileSync(new URL('../../docs/asyncapi.yaml', import.meta.url), 'utf8')

t.test('given the event schemas, when docs/asyncapi.yaml is generated, then it is the committed file (else run npm run docs:asyncapi)', async (t) => {
  t.equal(renderAsyncApi(committed), committed)
})

t.test('given a schema that changed, when docs/asyncapi.yaml is generated, then the file changes', async (t) => {
  const stale = committed.replace('"Past-tense event type; also the last subject token."', '"Old prose."')
  t.not(stale, committed)
  t.equal(renderAsyncApi(stale), committed)
})

t.test("given every event type mats writes, then docs/asyncapi.yaml has its message, at its current version, in its category's channel", async (t) => {
  for (const [type, spec] of Object.entries(EVENT_REGISTRY)) {
    const channel = `${CHANNEL_NAMES[spec.category] ?? spec.category}Events`
    const message = new RegExp(
      `\\n    ${type}:\\n      name: ${type}\\n[\\s\\S]*?\\n              version:\\n                const: (\\d+)\\n              data:\\n                \\$ref: '#/components/schemas/${type}Data'`,
    ).exec(committed)
    t.equal(message?.[1], String(spec.current), `${type}: message with version ${spec.current}`)
    t.match(committed, `address: mats.${spec.category}.{accountId}.{aggregateId}.{eventType}`, `${type}: channel of ${spec.category}`)
    t.match(committed, `$ref: '#/channels/${channel}/messages/${type}'`, `${type}: in its channel's operation`)
  }
})

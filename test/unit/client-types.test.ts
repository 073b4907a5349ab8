import { readFileSync } from 'node:fs'
import t from 'tap'
import { clientTypes, OPENAPI_FILE, SCHEMA_FILE } from '../../scripts/openapi-files.js'

t.test('given docs/openapi.json, when the client types are generated, then they are the committed packages/client/src/schema.d.ts (else run npm run docs:openapi)', async (t) => {
  t.equal(await clientTypes(readFileSync(OPENAPI_FILE, 'utf8')), readFileSync(SCHEMA_FILE, 'utf8'))
})

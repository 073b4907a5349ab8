// Writes docs/openapi.json (the document GET /v1/openapi.json serves, without a PUBLIC_BASE_URL)
// and the TypeScript client's types generated from it (packages/client/src/schema.d.ts).
// Starts its own nats-server and embedded MongoDB-wire server with temporary data.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { loadConfig } from '../src/config.js'
import { buildServer } from '../src/http/server.js'
import { connectApp } from '../src/app-context.js'
import { startMongo, startNats } from '../src/infra/local/servers.js'
import { clientTypes, OPENAPI_FILE, SCHEMA_FILE } from './openapi-files.js'

const dir = await mkdtemp(join(tmpdir(), 'mats-openapi-'))
const [nats, mongo] = await Promise.all([startNats({ dataDir: join(dir, 'nats') }), startMongo({ dataDir: join(dir, 'mongo'), database: 'mats' })])
try {
  const log = pino({ level: 'silent' })
  const infra = await connectApp(loadConfig({ NATS_URL: nats.url, MONGODB_URL: mongo.url }), log)
  const server = await buildServer(infra)
  await server.ready()
  const document = `${JSON.stringify(server.swagger(), null, 2)}\n`
  await server.close()
  await infra.close()
  await writeFile(OPENAPI_FILE, document)
  await writeFile(SCHEMA_FILE, await clientTypes(document))
  console.log('docs/openapi.json and packages/client/src/schema.d.ts written')
} finally {
  await Promise.all([nats.stop(), mongo.stop()])
  await rm(dir, { recursive: true, force: true })
}

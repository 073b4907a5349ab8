import { randomUUID } from 'node:crypto'
import t from 'tap'
import { execute, operator } from '../../src/commands/execute.js'
import { ConflictError } from '../../src/domain/errors.js'
import { decideCreateSession, Session } from '../../src/domain/sessions/session.js'
import { startServers } from '../helpers/servers.js'
import { connectTestInfra } from '../helpers/service.js'

const servers = await startServers(t)
const infra = await connectTestInfra(t, servers)
const profile = { name: 'S', companyName: null, companyUrl: null, industry: null, targetAudience: null, autonomy: 'approval-required' } as const

t.test('a create on a fresh id appends without loading, and the result is complete', async (t) => {
  const key = { accountId: randomUUID(), aggregateId: randomUUID() }
  const done = await execute(infra, Session, key, (s) => decideCreateSession(profile, s), operator(), { isNew: true })
  t.equal(done.appended.length, 1)
  t.equal(done.state.status, 'open')
  t.equal((await infra.events.load(Session, key)).events.length, 1)
})

t.test('isNew on an id that exists: the append conflicts, the retry loads it, and decide refuses', async (t) => {
  const key = { accountId: randomUUID(), aggregateId: randomUUID() }
  await execute(infra, Session, key, (s) => decideCreateSession(profile, s), operator())
  await t.rejects(
    execute(infra, Session, key, (s) => decideCreateSession(profile, s), operator(), { isNew: true }),
    ConflictError,
  )
  t.equal((await infra.events.load(Session, key)).events.length, 1, 'still exactly one SessionCreated')
})

import { createMatsClient } from '@mats/client'
import t from 'tap'
import { aCaller, aSessionBody } from '../helpers/mothers.js'
import { startServers } from '../helpers/servers.js'
import { startTestService } from '../helpers/service.js'
import { until } from '../helpers/wait.js'

const servers = await startServers(t)
// The projector answers the lists; no scheduler: nothing fires, the schedules are only managed.
const service = await startTestService(t, servers, { roles: ['api', 'projector'] })

t.test('given the generated client, then a caller manages schedules through it: create, list by session and page, read, pause, resume, delete', async (t) => {
  // Given
  const { key } = await aCaller(service.infra, service.url)
  const mats = createMatsClient({ baseUrl: service.url, apiKey: key.key })
  const first = await mats.POST('/sessions', { body: aSessionBody({ name: 'Weekly audits' }) })
  const other = await mats.POST('/sessions', { body: aSessionBody({ name: 'Daily drafts' }) })
  const sessionId = first.data?.session.id ?? ''
  const otherSessionId = other.data?.session.id ?? ''

  // When: three schedules, two in the first session
  const weekly = await mats.POST('/schedules', {
    body: { sessionId, agentType: 'seo', instruction: 'Audit the blog titles', cron: '0 9 * * 1', timezone: 'Europe/Berlin' },
  })
  const hourly = await mats.POST('/schedules', { body: { sessionId, agentType: 'seo', instruction: 'Check the sitemap', every: '1h', paused: true } })
  await mats.POST('/schedules', { body: { sessionId: otherSessionId, agentType: 'organic-social', instruction: 'Draft the daily posts', cron: '0 8 * * *' } })

  // Then
  t.equal(weekly.response.status, 201, 'POST /schedules')
  t.equal(weekly.response.headers.get('location'), `/v1/schedules/${weekly.data?.schedule.id}`)
  t.match(weekly.data?.schedule, { cron: '0 9 * * 1', every: null, timezone: 'Europe/Berlin', overlap: 'skip', paused: false })
  t.equal(weekly.data?.schedule.nextRuns.length, 5, 'typed nextRuns')
  t.same(hourly.data?.schedule.nextRuns, [], 'created paused: no next runs')
  const weeklyId = weekly.data?.schedule.id ?? ''
  const hourlyId = hourly.data?.schedule.id ?? ''

  const invalid = await mats.POST('/schedules', { body: { sessionId, agentType: 'seo', instruction: 'Both timings', cron: '* * * * *', every: '1m' } })
  t.equal(invalid.response.status, 400)
  t.equal(invalid.error?.code, 'invalid_request', 'a typed error: { error, code }')

  const ofSession = await until('both schedules of the session listed', async () => {
    const listed = await mats.GET('/schedules', { params: { query: { sessionId } } })
    return listed.data?.schedules.length === 2 && listed.data
  })
  t.same(ofSession.schedules.map((schedule) => schedule.id).sort(), [weeklyId, hourlyId].sort(), 'GET /schedules?sessionId= lists that session only')
  const pageOne = await until('the three schedules counted', async () => {
    const listed = await mats.GET('/schedules', { params: { query: { limit: 2, page: 1 } } })
    return listed.data?.pagination.total === 3 && listed
  })
  const pageTwo = await mats.GET('/schedules', { params: { query: { limit: 2, page: 2 } } })
  t.match(pageOne.data?.pagination, { page: 1, limit: 2, total: 3 }, 'typed pagination')
  t.equal(pageOne.data?.schedules.length, 2)
  t.equal(pageTwo.data?.schedules.length, 1, 'the second page holds the third')

  const read = await mats.GET('/schedules/{scheduleId}', { params: { path: { scheduleId: weeklyId } } })
  t.equal(read.data?.schedule.id, weeklyId, 'GET /schedules/{scheduleId}')
  t.same(read.data?.schedule.recentFirings, [], 'typed recentFirings: none yet')

  const paused = await mats.PATCH('/schedules/{scheduleId}', { params: { path: { scheduleId: weeklyId } }, body: { paused: true } })
  t.equal(paused.data?.schedule.paused, true, 'PATCH { paused: true } pauses')
  t.same(paused.data?.schedule.nextRuns, [])
  const resumed = await mats.PATCH('/schedules/{scheduleId}', { params: { path: { scheduleId: weeklyId } }, body: { paused: false } })
  t.equal(resumed.data?.schedule.paused, false, 'PATCH { paused: false } resumes')
  t.equal(resumed.data?.schedule.nextRuns.length, 5)
  const changed = await mats.PATCH('/schedules/{scheduleId}', { params: { path: { scheduleId: hourlyId } }, body: { every: '15m', priority: 'high' } })
  t.match(changed.data?.schedule, { every: '15m', priority: 'high', paused: true }, 'PATCH changes the timing and the brief')

  const deleted = await mats.DELETE('/schedules/{scheduleId}', { params: { path: { scheduleId: hourlyId } } })
  t.equal(deleted.response.status, 204, 'DELETE /schedules/{scheduleId}')
  const gone = await mats.GET('/schedules/{scheduleId}', { params: { path: { scheduleId: hourlyId } } })
  t.equal(gone.response.status, 404)
  t.equal(gone.error?.code, 'not_found')
})

import t from 'tap'
import type { ModelRequestView, ModelReply } from '../fakes/model-server.js'
import { languageModelRig, runToEnd } from '../helpers/language-models.js'
import { eventsOf, streamEvents } from '../helpers/event-log.js'
import { collectOutput, exited, spawnMats } from '../helpers/processes.js'
import { startServers } from '../helpers/servers.js'

const servers = await startServers(t)

/** An agent that proposes raising a budget, then reports. */
const proposer = (request: ModelRequestView): ModelReply =>
  request.turn === 0
    ? {
        text: '',
        calls: [
          {
            name: 'propose_action',
            args: { platform: 'google-ads', action: 'raise daily budget', summary: 'Raise the Kits campaign from 40 to 60 USD a day', content: 'Campaign: Kits; daily budget 60 USD' },
          },
        ],
      }
    : { text: '# Budget review\n\nThe Kits campaign is limited by budget.' }

interface SessionView {
  id: string
  autonomy: string
}
const brief = (sessionId: string, instruction: string) => ({ sessionId, agentType: 'paid-media', instruction })

t.test('a draft-only session keeps proposed actions as drafts; an autonomous one records that no connector is reachable', async (t) => {
  const rig = await languageModelRig(t, servers, 'openai', proposer, { session: { autonomy: 'draft-only' } })
  const drafted = await runToEnd(rig.caller.api, brief(rig.sessionId, 'Review the budget of the Kits campaign'))
  t.match(drafted.result, /\*\*raise daily budget\*\* on google-ads[\s\S]*Status: Draft \(nothing changed\)/)
  t.match(rig.fake.requests[0]?.system, /This workspace is draft-only/)

  const created = await rig.caller.api.post<{ session: SessionView }>('/v1/sessions', { name: 'Autopilot', autonomy: 'autonomous' })
  t.equal(created.status, 201)
  t.equal(created.body.session.autonomy, 'autonomous')
  const autonomous = await runToEnd(rig.caller.api, brief(created.body.session.id, 'Review the budget of the Kits campaign'))
  t.match(autonomous.result, /Not executed: no connector for this platform is reachable; no connector for google-ads is reachable from this deployment; nothing was changed/)

  const events = await streamEvents(rig.infra, 'MATS_TASKS')
  t.equal((eventsOf(events, drafted.id, 'TaskActionProposed')[0]?.data as { status: string } | undefined)?.status, 'draft')
  t.equal((eventsOf(events, autonomous.id, 'TaskActionProposed')[0]?.data as { status: string } | undefined)?.status, 'not_executed')
})

t.test('sessions require approval unless told otherwise, and reject an unknown autonomy naming the field', async (t) => {
  const rig = await languageModelRig(t, servers, 'openai', proposer)
  const { body } = await rig.caller.api.get<{ sessions: SessionView[] }>('/v1/sessions')
  t.same(
    body.sessions.map((s) => s.autonomy),
    ['approval-required'],
  )
  const bad = await rig.caller.api.post<{ error: string }>('/v1/sessions', { name: 'Wild', autonomy: 'yolo' })
  t.equal(bad.status, 400)
  t.match(bad.body.error, /^body\.autonomy: /)
})

t.test('an operator changes a session’s autonomy with the CLI; the next run follows it', async (t) => {
  const rig = await languageModelRig(t, servers, 'anthropic', proposer)
  const env = { NATS_URL: servers.natsUrl, MONGODB_URL: servers.mongoUrl }

  const refused = spawnMats(t, ['sessions', 'autonomy', rig.sessionId, 'reckless'], env)
  const refusal = collectOutput(refused)
  t.equal(await exited(refused), 2, 'a value the CLI refuses is a usage error: exit 2')
  t.match(refusal.text(), /autonomy: must be one of draft-only, approval-required, autonomous \(got "reckless"\)/)

  const cli = spawnMats(t, ['sessions', 'autonomy', rig.sessionId, 'draft-only', '--json'], env)
  const output = collectOutput(cli)
  t.equal(await exited(cli), 0, output.text())
  t.match(JSON.parse(output.text()), { id: rig.sessionId, autonomy: 'draft-only' })
  const [changed] = eventsOf(await streamEvents(rig.infra, 'MATS_SESSIONS'), rig.sessionId, 'SessionAutonomyChanged')
  t.same(changed?.data, { autonomy: 'draft-only', previous: 'approval-required' })

  const task = await runToEnd(rig.caller.api, brief(rig.sessionId, 'Review the budget of the Kits campaign'))
  t.match(task.result, /Status: Draft/)
  const { body } = await rig.caller.api.get<{ sessions: SessionView[] }>('/v1/sessions')
  t.equal(body.sessions[0]?.autonomy, 'draft-only', 'the session read model follows')

  const show = spawnMats(t, ['sessions', 'show', rig.sessionId, '--json'], env)
  const shown = collectOutput(show)
  t.equal(await exited(show), 0)
  t.match(JSON.parse(shown.text()), { id: rig.sessionId, autonomy: 'draft-only', companyName: 'Acme Rockets', learnedFacts: [] })
})

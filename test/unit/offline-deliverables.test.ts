import { createHash } from 'node:crypto'
import t from 'tap'
import { buildDeliverable } from '../../consumers/agents/offline/deliverable.js'
import type { AgentRunRequest } from '../../consumers/agents/provider.js'
import { AGENTS } from '../../src/domain/agents/catalogue.js'

/**
 * Briefs that exercise the matching: several agents named, a subspecialty named word for word, none
 * at all, a word said again, an agent's own words inside a subspecialty's name, one specialist
 * matched and the plan topped up with others that score.
 */
const BRIEFS = {
  launch: 'Launch our new product with SEO content and a paid social campaign',
  vague: 'Overhead brief r1-7: plan the launch posts',
  nurture: 'Email nurture sequence for churned users, with A/B subject lines and paid search retargeting',
  empty: '',
  repeated: 'SEO audit, SEO content and an SEO report: SEO first',
  identityInPhrase: 'Paid media plan: paid social and paid search, with email marketing automation',
  toppedUp: "Influencer creator outreach programme, with retargeting of the creators' audiences",
}
const session: AgentRunRequest['session'] = {
  name: 'Spring launch',
  companyName: 'Acme Rockets',
  companyUrl: null,
  industry: 'Aerospace',
  targetAudience: null,
  autonomy: 'approval-required',
  facts: [],
}

t.test('given fixed briefs, when every agent builds its offline deliverable, then each is the same bytes as recorded (after a deliberate change to the text: tap --snapshot)', async (t) => {
  const digests: Record<string, string> = {}
  for (const agent of AGENTS) {
    for (const [name, instruction] of Object.entries(BRIEFS)) {
      const output = buildDeliverable({ task: { id: '00000000-0000-4000-8000-000000000001', agentType: agent.type, instruction, title: null }, agent, session })
      digests[`${agent.type} / ${name}`] = createHash('sha256').update(output).digest('hex').slice(0, 16)
    }
  }
  t.equal(new Set(Object.values(digests)).size, AGENTS.length * Object.keys(BRIEFS).length, 'every deliverable differs from the others')
  t.matchSnapshot(digests)
})

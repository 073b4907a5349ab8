import type { AgentPlaybook } from './types.js'

export const demandGen: AgentPlaybook = {
  role: 'Turns B2B demand into qualified pipeline for sales',
  keywords: ['b2b', 'demand', 'pipeline', 'leads', 'lead', 'abm', 'sales', 'webinar', 'mql', 'accounts'],
  kpis: [
    'Marketing-sourced and marketing-influenced pipeline value',
    'MQL → SQL → opportunity conversion rates',
    'Cost per opportunity by channel',
    'Pipeline velocity and sales-cycle length',
    'Engagement of target accounts',
  ],
  approvals: ['Launching campaigns or sequences to prospects', 'Changing lead scoring or routing in the live CRM', 'Sending direct mail or event invitations'],
  subspecialties: {
    'icp-personas': {
      keywords: ['icp', 'persona', 'personas', 'buyer', 'buyers', 'customer', 'customers', 'profile', 'committee', 'segment'],
      actions: [
        'Define the ideal customer profile for {company} from firmographics, technographics and win/loss data.',
        "Map the buying committee within {audience} (champion, economic buyer, user, blocker) with each role's pains and objections.",
        'Write one core message per role and test it on sales calls.',
      ],
      deliverable: 'ICP and buyer persona sheet',
    },
    'account-based-marketing': {
      keywords: ['abm', 'account', 'accounts', 'target', 'enterprise', 'tier', 'tiered', 'direct', 'mail', 'outbound'],
      actions: [
        'Build a tiered target-account list: 10 one-to-one, 50 one-to-few and 500 one-to-many.',
        'Plan coordinated plays per tier across ads, email, direct mail and sales outreach.',
        'Agree with sales which intent signals trigger outreach.',
      ],
      deliverable: 'Tiered target-account list and ABM plays',
    },
    'content-offers': {
      keywords: ['content', 'offer', 'offers', 'gated', 'ebook', 'report', 'reports', 'calculator', 'case', 'study', 'whitepaper'],
      actions: [
        'Map one asset per buying stage: a report (awareness), a webinar (consideration), a case study and a calculator (decision).',
        'Decide gated or ungated per asset; gate only high-intent assets.',
        'Plan how each asset is distributed through paid, email, social and sales.',
      ],
      deliverable: 'Content offer map by buying stage',
    },
    'lead-management': {
      keywords: ['lead', 'leads', 'scoring', 'score', 'routing', 'mql', 'sql', 'pql', 'sla', 'crm', 'qualification'],
      actions: [
        'Define MQL, SQL and PQL criteria together with sales.',
        'Build a lead score from fit and behaviour and review the thresholds quarterly.',
        'Set routing rules and a follow-up SLA (for example within 24 hours).',
      ],
      deliverable: 'Lead scoring and routing specification',
    },
    'events-webinars': {
      keywords: ['event', 'events', 'webinar', 'webinars', 'virtual', 'conference', 'conferences', 'summit', 'workshop'],
      actions: [
        'Plan a webinar for {audience} on a problem {company} solves, with a customer as guest.',
        'Promote it three weeks ahead through email, social and paid, with reminders.',
        'Follow up within 24 hours with the recording and a next step, and attribute the pipeline.',
      ],
      deliverable: 'Webinar plan with promotion and follow-up (drafts)',
    },
    'pipeline-analytics': {
      keywords: ['pipeline', 'analytics', 'attribution', 'velocity', 'revenue', 'report', 'reporting', 'opportunity', 'opportunities', 'forecast'],
      actions: [
        'Report marketing-sourced and influenced pipeline per channel and campaign.',
        'Track funnel conversion and velocity from MQL to closed-won.',
        'Calculate cost per opportunity by channel and move budget to the best.',
      ],
      deliverable: 'Pipeline dashboard specification',
    },
  },
}

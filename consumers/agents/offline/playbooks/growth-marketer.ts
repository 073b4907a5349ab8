import type { AgentPlaybook } from './types.js'

export const growthMarketer: AgentPlaybook = {
  role: 'Sets the objective, budget and sequence; keeps every channel on one plan',
  keywords: ['growth', 'strategy', 'plan', 'roadmap', 'okr', 'launch'],
  kpis: [
    'North Star metric for {company} and its 3–4 input metrics, reviewed weekly',
    'Blended CAC and CAC payback period by channel',
    'LTV:CAC ratio (aim for 3:1 or better)',
    'Activation rate and 30/90-day retention cohorts',
    'Experiment velocity (tests shipped per week) and win rate',
  ],
  approvals: ['Committing budget across channels', 'Starting specialist work that publishes, spends or sends'],
  subspecialties: {
    'growth-strategy': {
      keywords: ['strategy', 'plan', 'quarter', 'quarterly', 'okr', 'okrs', 'goal', 'goals', 'growth', 'grow'],
      actions: [
        'Write a one-paragraph growth thesis for {company}: which part of {audience} you win first, why they switch, and the revenue goal for the quarter.',
        'Choose one primary segment and at most two channel bets for {industry}; park every other idea in a "not now" list with the reason.',
        'Set 2–3 OKRs tied to revenue and retention, each with one owner and a weekly check-in.',
        'Draft the positioning statement ("for {audience}, {company} is the … that …") and test it in five customer conversations.',
      ],
      deliverable: 'Quarterly growth plan with primary segment, positioning and OKRs',
    },
    'funnel-metrics': {
      keywords: ['metric', 'metrics', 'kpi', 'kpis', 'funnel', 'north', 'star', 'cac', 'ltv', 'retention', 'measure', 'dashboard', 'aarrr'],
      actions: [
        'Choose a North Star metric for {company} and 3–4 input metrics the team can move every week.',
        'Map the AARRR funnel for {audience} with the current conversion rate per stage; mark each unknown rate "to measure".',
        'Build a KPI tree from revenue down to CAC, LTV, payback period and retention cohorts.',
        'Agree one source of truth (analytics plus CRM) and a 30-minute weekly dashboard review.',
      ],
      deliverable: 'KPI tree and funnel baseline',
    },
    'experimentation-roadmap': {
      keywords: ['experiment', 'experiments', 'experimentation', 'test', 'tests', 'testing', 'hypothesis', 'hypotheses', 'ice', 'rice', 'backlog'],
      actions: [
        'Collect 15–20 growth hypotheses across the funnel and score each with ICE (impact, confidence, ease).',
        'Set a test cadence (for example two tests a week) and a minimum sample size before any test starts.',
        'Run a weekly learning review; record each result and the decision it led to.',
      ],
      deliverable: 'Scored experiment backlog (ICE) with test cadence',
    },
    'channel-mix-budget': {
      keywords: ['budget', 'budgets', 'spend', 'channel', 'channels', 'mix', 'allocation', 'allocate', 'investment'],
      actions: [
        'Split the budget into a proven core (about 70%), scaling bets (20%) and experiments (10%).',
        'Rank channels for {industry} by marginal CAC and contribution margin, not by platform-reported ROAS.',
        'Rebalance spend monthly on incrementality evidence; cut a channel that misses its payback target two months running.',
      ],
      deliverable: 'Channel mix and budget allocation with monthly rebalancing rules',
    },
    'go-to-market': {
      keywords: ['launch', 'launches', 'gtm', 'release', 'product', 'feature', 'pricing', 'positioning', 'messaging', 'announce'],
      actions: [
        'Define the launch ICP and messaging hierarchy: one headline promise for {audience} and three proof points.',
        'Pick a launch tier (major, standard or minor) and sequence channels: owned first, then earned, then paid.',
        'Set success criteria before launch day: sign-ups, activation and revenue or pipeline targets for the first 30 days.',
        'Write a launch-day runbook with owners, assets, timings and a rollback plan for {site}.',
      ],
      deliverable: 'Launch plan with tier, channel sequence and success criteria',
    },
    'brief-delegation': {
      keywords: ['delegate', 'delegation', 'coordinate', 'coordination', 'team', 'specialist', 'specialists', 'owner', 'owners'],
      actions: [
        'Split the brief into scoped tasks per specialist, each with one owner, one deadline and one metric.',
        'Share one context sheet ({company}, {industry}, {audience}) so every specialist works from the same facts.',
        "Check the specialists' outputs for consistent messaging, tracking and dates before anything goes live.",
      ],
      deliverable: 'Task split with owners, deadlines and metrics',
    },
  },
}

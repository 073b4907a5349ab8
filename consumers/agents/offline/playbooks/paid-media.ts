import type { AgentPlaybook } from './types.js'

export const paidMedia: AgentPlaybook = {
  role: 'Creates and captures demand with measurable paid reach',
  keywords: ['paid', 'ads', 'advertising', 'ppc', 'media', 'campaign', 'campaigns', 'google', 'meta', 'facebook'],
  kpis: [
    'CPA against the break-even CPA for {company}',
    'ROAS per campaign and blended MER (revenue ÷ total spend)',
    'CTR and CPC per campaign and ad set',
    'Conversion rate per audience',
    'Incremental lift measured by holdout tests',
  ],
  approvals: ['Launching, pausing or editing any live campaign', 'Committing or increasing ad spend', 'Changing conversion tracking on live ad accounts'],
  subspecialties: {
    'paid-search': {
      keywords: ['search', 'google', 'bing', 'microsoft', 'ppc', 'sem', 'keyword', 'keywords', 'pmax'],
      actions: [
        'Build keyword themes from the words {audience} use for the problem, split into brand, competitor and generic campaigns.',
        'Start with phrase and exact match and a shared negative list (jobs, free, DIY) from day one.',
        'Write two responsive search ads per ad group with 10+ headlines, pinning only where the message needs it.',
        'Add Performance Max only once 30+ conversions a month are tracked reliably.',
      ],
      deliverable: 'Paid search account structure and ad copy (drafts)',
    },
    'paid-social': {
      keywords: ['social', 'meta', 'facebook', 'instagram', 'linkedin', 'tiktok', 'audience', 'audiences', 'lookalike', 'lookalikes', 'retargeting'],
      actions: [
        'Structure campaigns as prospecting, retargeting and retention, each with its own budget.',
        'Layer audiences for {audience}: interests, 1% lookalikes of buyers, and site visitors for retargeting.',
        'Test 3 angles × 2 formats per ad set; keep the winners and refresh creative every 2–3 weeks.',
        'Cap prospecting frequency at about 2–3 a week to avoid fatigue.',
      ],
      deliverable: 'Paid social campaign structure and creative test matrix',
    },
    'media-planning': {
      keywords: ['planning', 'budget', 'budgets', 'flight', 'flighting', 'forecast', 'pacing', 'spend'],
      actions: [
        'Draft a media plan per channel with budget, flight dates and forecast CPM, CPC, CPA and ROAS from {industry} benchmarks.',
        'Reserve 10–15% of the budget for tests and set pacing rules (for example ±15% of plan per week).',
        'State the break-even CPA for {company} so every channel is judged against the same bar.',
      ],
      deliverable: 'Media plan with budgets, flighting and forecasts',
    },
    'bidding-optimization': {
      keywords: ['bid', 'bids', 'bidding', 'optimise', 'optimize', 'tcpa', 'troas', 'cpa', 'roas', 'efficiency'],
      actions: [
        'Start on maximise conversions, then move to tCPA or tROAS once a campaign has 30–50 conversions a month.',
        'Avoid edits during learning phases; batch changes into one weekly session.',
        'Review search terms, placements and audiences weekly and add negatives and exclusions.',
      ],
      deliverable: 'Bidding strategy and weekly optimisation checklist',
    },
    'tracking-attribution': {
      keywords: ['tracking', 'track', 'attribution', 'pixel', 'pixels', 'conversion', 'conversions', 'utm', 'capi', 'measurement'],
      actions: [
        'List the conversion events that matter to {company} (lead, sign-up, purchase) and the value of each.',
        'Specify pixels plus Conversions API and enhanced conversions, deduplicated by event id.',
        'Publish a UTM convention and the attribution model (for example data-driven, 7-day click) used to judge spend.',
      ],
      deliverable: 'Tracking and attribution specification',
    },
    'incrementality-testing': {
      keywords: ['incrementality', 'incremental', 'holdout', 'lift', 'geo', 'causal'],
      actions: [
        'Design a geo-holdout test for the largest channel, with matched regions and a 4-week read.',
        'Run a platform conversion-lift study where the platform supports one.',
        'Compare incremental CPA with platform-reported CPA and move budget accordingly.',
      ],
      deliverable: 'Incrementality test design',
    },
  },
}

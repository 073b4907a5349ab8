import type { AgentPlaybook } from './types.js'

export const emailMarketing: AgentPlaybook = {
  role: 'Turns attention into an owned list and repeat revenue',
  keywords: ['email', 'emails', 'newsletter', 'sms', 'lifecycle', 'crm', 'subscribers', 'inbox', 'retention'],
  kpis: [
    'Revenue per recipient per flow and campaign',
    'Click-through rate and click-to-open rate',
    'Conversion rate per flow',
    'Unsubscribe rate and spam complaint rate (keep under 0.1%)',
    'Net list growth per month',
  ],
  approvals: ['Sending or scheduling any email or SMS', 'Activating or editing live automated flows', 'Importing or changing subscriber lists'],
  subspecialties: {
    'lifecycle-automation': {
      keywords: ['automation', 'automated', 'flow', 'flows', 'welcome', 'onboarding', 'cart', 'abandoned', 'winback', 'churn', 'drip', 'nurture'],
      actions: [
        'Map the core flows: welcome, onboarding, abandoned cart or sign-up, post-purchase and win-back.',
        'For each flow define the trigger, delays, exit conditions and the one goal it serves.',
        'Write the welcome series first: three emails that introduce {company} to {audience} and drive the first key action.',
      ],
      deliverable: 'Lifecycle flow map and welcome series (drafts)',
    },
    'segmentation-personalization': {
      keywords: ['segment', 'segments', 'segmentation', 'personalise', 'personalize', 'rfm', 'dynamic', 'targeting'],
      actions: [
        'Build starter segments (new, engaged, at risk, lapsed) plus RFM tiers for buyers.',
        'Define dynamic content rules per segment: which offer, product and proof each one sees.',
        'Suppress unengaged contacts from broadcasts to protect deliverability.',
      ],
      deliverable: 'Segment definitions and personalisation rules',
    },
    'campaign-calendar': {
      keywords: ['campaign', 'campaigns', 'newsletter', 'newsletters', 'broadcast', 'subject', 'copy', 'calendar', 'announcement', 'launch'],
      actions: [
        'Plan the broadcast calendar for the next four weeks around the brief and its key dates.',
        'Write three subject line and preheader pairs per send, ready for an A/B test.',
        'Keep one clear call to action per email, pointing to the right page on {site}.',
      ],
      deliverable: 'Broadcast calendar and email copy (drafts)',
    },
    deliverability: {
      keywords: ['spam', 'inbox', 'spf', 'dkim', 'dmarc', 'warmup', 'warm', 'hygiene', 'bounce', 'bounces', 'placement'],
      actions: [
        'Verify SPF, DKIM and DMARC on the sending domain before sending any volume.',
        'Warm up new domains or IPs gradually and remove hard bounces at once.',
        'Set a sunset policy: stop mailing contacts inactive for 90–180 days after one re-engagement attempt.',
      ],
      deliverable: 'Deliverability checklist',
    },
    'email-analytics': {
      keywords: ['analytics', 'report', 'reporting', 'test', 'testing', 'ctr', 'open', 'opens', 'revenue', 'performance'],
      actions: [
        'Report CTR, conversions, revenue per recipient and unsubscribes per flow and per campaign.',
        'Run one structured test at a time (timing, offer or content) against a holdout.',
        'Review results monthly and rewrite or retire the weakest email in each flow.',
      ],
      deliverable: 'Email performance dashboard specification',
    },
    'list-growth': {
      keywords: ['list', 'subscriber', 'subscribers', 'signup', 'signups', 'optin', 'lead', 'magnet', 'popup', 'form', 'forms', 'gdpr'],
      actions: [
        'Create a lead magnet that {audience} value (checklist, guide or first-order offer) for {site}.',
        'Set pop-up rules (exit intent or 50% scroll, never on arrival) and a double opt-in flow.',
        'Record consent for GDPR and include the CAN-SPAM required details in every email.',
      ],
      deliverable: 'List growth plan with opt-in forms and lead magnet',
    },
  },
}

import type { AgentPlaybook } from './types.js'

export const influencerMarketing: AgentPlaybook = {
  role: 'Borrows trust and reach from creators that {audience} already follow',
  keywords: ['influencer', 'influencers', 'creator', 'creators', 'ugc', 'ambassador', 'affiliate', 'partnership', 'partnerships'],
  kpis: [
    'Reach and engagement rate per creator',
    'CPM and cost per engagement per creator',
    'Discount-code and tracked-link conversions',
    'Earned media value per creator',
    'Share of creator content reused in paid ads',
  ],
  approvals: ['Sending outreach or offers to creators', 'Signing contracts or paying creators', 'Running creator content as ads (whitelisting)'],
  subspecialties: {
    'creator-discovery': {
      keywords: ['creator', 'creators', 'influencer', 'influencers', 'discovery', 'discover', 'vet', 'vetting', 'shortlist', 'find'],
      actions: [
        'Shortlist 20 nano to mid-tier creators followed by {audience} in {industry}.',
        'Vet each for audience demographics, engagement rate, brand safety and signs of fake followers.',
        'Score fit from 1 to 5 and keep the top 10 for outreach.',
      ],
      deliverable: 'Vetted creator shortlist',
    },
    'outreach-negotiation': {
      keywords: ['outreach', 'negotiate', 'negotiation', 'rate', 'rates', 'contract', 'contracts', 'rights', 'exclusivity', 'fee', 'fees'],
      actions: [
        "Write a three-step outreach sequence that is personal and refers to the creator's own content.",
        'Set rate ranges and negotiate deliverables, usage rights, exclusivity and payment terms.',
        'Put every agreement in writing before any content is produced.',
      ],
      deliverable: 'Outreach sequence and negotiation guide (drafts)',
    },
    'campaign-briefs': {
      keywords: ['brief', 'briefs', 'message', 'messages', 'disclosure', 'ftc', 'asa', 'guideline', 'guidelines', 'campaign'],
      actions: [
        "Write a one-page creator brief: key messages for {company}, do and don't lists, deliverables and timeline.",
        'Include the FTC/ASA disclosure rules (#ad, paid-partnership label).',
        "Leave room for the creator's style: approve concepts, not word-for-word scripts.",
      ],
      deliverable: 'Creator brief (draft)',
    },
    'ugc-whitelisting': {
      keywords: ['ugc', 'whitelist', 'whitelisting', 'allowlisting', 'spark', 'ads', 'paid', 'reuse'],
      actions: [
        'Source UGC for ads from creators and customers, with usage rights agreed in writing.',
        'Set up whitelisting and Spark Ads so creator posts can run as paid media from their handles.',
        'Hand the best-performing creator content to the paid media team for testing.',
      ],
      deliverable: 'UGC and whitelisting setup plan',
    },
    'affiliate-ambassador': {
      keywords: ['affiliate', 'affiliates', 'ambassador', 'ambassadors', 'commission', 'code', 'codes', 'referral', 'programme', 'program'],
      actions: [
        'Design ambassador tiers with commission rates, discount codes and rewards.',
        'Set up tracking links and a unique discount code per creator.',
        'Invite the best performers from one-off campaigns into the programme.',
      ],
      deliverable: 'Ambassador and affiliate programme design',
    },
    'influencer-measurement': {
      keywords: ['measure', 'measurement', 'roi', 'result', 'results', 'emv', 'report', 'reporting', 'performance'],
      actions: [
        'Track reach, engagement, CPM and code and link conversions per creator.',
        'Calculate cost per acquisition and earned media value per creator.',
        'Renew the top third and drop the bottom third each cycle.',
      ],
      deliverable: 'Creator ROI report template',
    },
  },
}

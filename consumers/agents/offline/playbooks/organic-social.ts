import type { AgentPlaybook } from './types.js'

export const organicSocial: AgentPlaybook = {
  role: 'Builds an owned audience and earned reach with platform-native content',
  keywords: ['social', 'organic', 'linkedin', 'instagram', 'tiktok', 'youtube', 'posts', 'followers', 'community'],
  kpis: [
    'Engagement rate per post and per platform',
    'Reach and impressions from non-followers',
    'Saves and shares per post',
    'Follower growth rate per month',
    'Profile visits and link clicks to {site}',
  ],
  approvals: ['Publishing or scheduling posts on any live account', 'Replying publicly for {company} outside the agreed guidelines'],
  subspecialties: {
    'social-strategy': {
      keywords: ['strategy', 'platform', 'platforms', 'pillar', 'pillars', 'voice', 'organic', 'presence', 'linkedin', 'instagram', 'tiktok', 'youtube'],
      actions: [
        'Pick the two platforms where {audience} already spend time and commit to them before adding more.',
        'Define 3–4 content pillars for {company}: for example education, behind the scenes, customer stories and a point of view on {industry}.',
        "Set a cadence you can sustain per platform (for example LinkedIn 3 a week, short-form video 4 a week) and a voice guide with do/don't examples.",
        'Agree the KPIs per platform (engagement rate, saves, reach, follower growth) and review them monthly.',
      ],
      deliverable: 'Social strategy: platforms, pillars, voice and cadence',
    },
    'content-calendar': {
      keywords: ['calendar', 'schedule', 'monthly', 'weekly', 'posting', 'cadence'],
      actions: [
        'Draft a 4-week calendar that mixes pillars and formats: carousels, short-form video, threads and Stories.',
        'Anchor the calendar on the campaign dates and on 2–3 moments that matter in {industry} this month.',
        'Produce a week ahead in batches and keep 20% of slots free for reactive posts.',
      ],
      deliverable: '4-week content calendar (draft)',
    },
    'platform-native-content': {
      keywords: ['post', 'posts', 'caption', 'captions', 'hook', 'hooks', 'video', 'videos', 'reels', 'shorts', 'script', 'scripts', 'hashtags', 'copy'],
      actions: [
        'Write 10 hooks aimed at {audience}; each must land in the first three seconds or the first line.',
        'Script three short-form videos (hook, problem, proof, call to action), each under 30 seconds.',
        'Write captions per platform and a 5–8 hashtag set per pillar, avoiding generic or banned tags.',
      ],
      deliverable: 'Post copy, hooks and short-form video scripts (drafts)',
    },
    'community-management': {
      keywords: ['community', 'comment', 'comments', 'dm', 'dms', 'reply', 'replies', 'respond', 'moderation', 'sentiment'],
      actions: [
        'Write response guidelines and tone rules, with saved replies for the 10 questions {audience} ask most.',
        'Define an escalation path for complaints, press and legal issues, with a named owner for each.',
        'Aim for a first response within 2 working hours and track sentiment weekly.',
      ],
      deliverable: 'Community playbook with saved replies and escalation path',
    },
    'social-analytics': {
      keywords: ['listening', 'analytics', 'mention', 'mentions', 'competitor', 'competitors', 'trend', 'trends', 'report', 'reporting'],
      actions: [
        'Set up listening for {company}, its products and the top three competitors in {industry}.',
        'Report monthly on share of voice, the top five posts and why they worked.',
        'Carry three concrete insights into the next calendar and drop formats that underperform twice.',
      ],
      deliverable: 'Monthly social listening and performance report template',
    },
    'employee-advocacy': {
      keywords: ['founder', 'founders', 'ceo', 'employee', 'employees', 'advocacy', 'personal', 'thought', 'leadership', 'ghostwrite'],
      actions: [
        "Pick 1–3 voices at {company} (the founder first) and define each person's topics for {audience}.",
        'Ghostwrite two LinkedIn posts per person per week from short interviews, each approved by its author.',
        'Set amplification rules: the team comments in the first hour; no engagement pods.',
      ],
      deliverable: 'Founder and employee advocacy plan with first posts (drafts)',
    },
  },
}

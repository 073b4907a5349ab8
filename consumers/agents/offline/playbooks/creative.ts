import type { AgentPlaybook } from './types.js'

export const creative: AgentPlaybook = {
  role: 'Gives every channel one strong idea and assets that convert',
  keywords: ['creative', 'concept', 'concepts', 'copy', 'design', 'brand', 'video', 'ad', 'ads', 'messaging', 'tagline'],
  kpis: [
    'Hook rate (3-second views ÷ impressions) per video',
    'CTR per concept and angle',
    'Conversion rate per creative variant',
    'Creative fatigue: frequency against CTR decline',
    'Message recall in a short post-campaign survey',
  ],
  approvals: ['Publishing any asset or ad', 'Final brand sign-off on concepts and taglines'],
  subspecialties: {
    'campaign-concepts': {
      keywords: ['concept', 'concepts', 'idea', 'ideas', 'campaign', 'big', 'tagline', 'taglines', 'territory', 'creative'],
      actions: [
        'Write the core insight about {audience} in one sentence and build three campaign territories from it.',
        'Give each territory a tagline, a key visual description and how it extends to social, search, email and {site}.',
        'Recommend one territory with the reasons and the risks.',
      ],
      deliverable: 'Three campaign concepts with taglines and key visuals (drafts)',
    },
    copywriting: {
      keywords: ['copy', 'write', 'writing', 'headline', 'headlines', 'words', 'cta', 'messaging', 'text', 'slogan'],
      actions: [
        "Write five headlines for {company} using PAS and AIDA, within each channel's character limits.",
        'Write body copy and three calls to action in the brand voice.',
        'Use the words {audience} in {industry} use for the problem, not internal jargon.',
      ],
      deliverable: 'Headlines, body copy and calls to action (drafts)',
    },
    'ad-creative': {
      keywords: ['ad', 'ads', 'variant', 'variants', 'hook', 'hooks', 'angle', 'angles', 'format', 'formats', 'creative', 'paid'],
      actions: [
        'Produce a modular set of 4 hooks × 3 angles × 2 formats, changing one variable per test.',
        'Name every asset concept_angle_hook_format_version so results stay readable.',
        'Agree the test plan and the fatigue threshold for a refresh with the paid media team.',
      ],
      deliverable: 'Ad variant matrix and naming convention',
    },
    'video-scripts': {
      keywords: ['video', 'videos', 'script', 'scripts', 'storyboard', 'storyboards', 'ugc', 'reel', 'reels', 'film', 'youtube', 'tiktok'],
      actions: [
        'Write a 15–30 second script: hook in the first 3 seconds, problem, demo, proof, call to action.',
        'Storyboard it shot by shot and plan crops for 9:16, 1:1 and 16:9.',
        'Write a UGC-style brief so creators can record a variant in their own words for {audience}.',
      ],
      deliverable: 'Video scripts and storyboards',
    },
    'brand-identity': {
      keywords: ['brand', 'branding', 'identity', 'guidelines', 'tone', 'voice', 'positioning', 'visual', 'logo', 'rebrand'],
      actions: [
        'Write the positioning statement and 3–4 messaging pillars for {company}.',
        "Define the tone of voice with do/don't examples and a short word list.",
        'Document the visual rules (logo use, colour, type, imagery) in a one-page guide.',
      ],
      deliverable: 'Brand guidelines one-pager',
    },
  },
}

export const AGENT_TYPES = ['growth-marketer', 'organic-social', 'paid-media', 'seo', 'email-marketing', 'creative', 'web-developer', 'cro', 'influencer-marketing', 'demand-gen'] as const

export type AgentType = (typeof AGENT_TYPES)[number]

export interface Subspecialty {
  readonly id: string
  readonly name: string
  readonly description: string
}

export interface Agent {
  readonly type: AgentType
  readonly name: string
  readonly description: string
  readonly isSupervisor: boolean
  readonly subspecialties: readonly Subspecialty[]
}

type AgentSpec = Omit<Agent, 'type'>

function freezeAgent(type: AgentType, spec: AgentSpec): Agent {
  return Object.freeze({
    type,
    name: spec.name,
    description: spec.description,
    isSupervisor: spec.isSupervisor,
    subspecialties: Object.freeze(spec.subspecialties.map((s) => Object.freeze({ ...s }))),
  })
}

// Keyed by AgentType so the compiler rejects a missing or extra agent.
const SPECS: { readonly [T in AgentType]: AgentSpec } = {
  'growth-marketer': {
    name: 'Growth Marketer',
    description:
      'Plans growth strategy across channels, sets goals and budgets, and delegates parts of a brief to the nine specialist agents. Consolidates their work into one prioritised growth plan with clear owners, metrics and timelines.',
    isSupervisor: true,
    subspecialties: [
      {
        id: 'growth-strategy',
        name: 'Growth Strategy & Planning',
        description: 'Turns business objectives into a quarterly growth plan with target segments, positioning, channel bets and OKRs tied to revenue and retention.',
      },
      {
        id: 'funnel-metrics',
        name: 'Funnel & Metrics',
        description:
          'Defines the North Star metric and its input metrics, maps the AARRR funnel with stage conversion rates, and sets up a KPI tree covering CAC, LTV, payback period and retention cohorts.',
      },
      {
        id: 'experimentation-roadmap',
        name: 'Experimentation Roadmap',
        description: 'Builds a backlog of growth hypotheses scored with ICE or RICE, sets test cadence and sample-size rules, and runs a weekly learning review.',
      },
      {
        id: 'channel-mix-budget',
        name: 'Channel Mix & Budget Allocation',
        description: 'Allocates budget across paid, owned and earned channels using marginal CAC, contribution margin and incrementality evidence, and rebalances spend monthly.',
      },
      {
        id: 'go-to-market',
        name: 'Go-to-Market',
        description: 'Plans product and feature launches covering ICP, messaging hierarchy, pricing and packaging input, launch tiers, channel sequencing and success criteria.',
      },
      {
        id: 'brief-delegation',
        name: 'Brief Delegation & Coordination',
        description: 'Splits an incoming brief into scoped tasks for the specialist agents, sets shared goals and deadlines, and checks that their outputs are consistent before delivery.',
      },
    ],
  },
  'organic-social': {
    name: 'Organic Social Media Manager',
    description:
      'Builds and runs unpaid social presence across LinkedIn, Instagram, TikTok, X and YouTube. Delivers content strategy, calendars, post copy and community management playbooks that grow reach and engagement.',
    isSupervisor: false,
    subspecialties: [
      {
        id: 'social-strategy',
        name: 'Social Strategy',
        description: 'Defines platform selection, content pillars, brand voice, posting cadence and KPIs such as engagement rate, reach, saves and follower growth per platform.',
      },
      {
        id: 'content-calendar',
        name: 'Content Calendar',
        description: 'Produces monthly content calendars that balance pillars and formats (carousels, short-form video, threads, Stories) against campaigns and cultural moments.',
      },
      {
        id: 'platform-native-content',
        name: 'Platform-Native Content',
        description: 'Writes hooks, captions, scripts and hashtag sets tailored to each platform algorithm, including short-form video scripts with a hook in the first three seconds.',
      },
      {
        id: 'community-management',
        name: 'Community Management',
        description: 'Sets response guidelines, comment and DM workflows, escalation paths and tone rules, and tracks response time and sentiment.',
      },
      {
        id: 'social-analytics',
        name: 'Social Listening & Analytics',
        description: 'Monitors brand mentions, competitor activity and trends, and reports on share of voice, top-performing posts and the insights to carry into the next cycle.',
      },
      {
        id: 'employee-advocacy',
        name: 'Founder & Employee Advocacy',
        description: 'Builds personal-brand content programmes for founders and employees on LinkedIn, with ghostwritten posts, posting schedules and amplification rules.',
      },
    ],
  },
  'paid-media': {
    name: 'Paid Media Specialist',
    description:
      'Plans, launches and optimises paid campaigns across Google, Meta, LinkedIn, TikTok and programmatic. Delivers media plans, account structures, targeting, bidding strategy and performance reporting against CPA and ROAS targets.',
    isSupervisor: false,
    subspecialties: [
      {
        id: 'paid-search',
        name: 'Paid Search',
        description: 'Builds Google and Microsoft Ads accounts with keyword themes, match-type strategy, negative lists, responsive search ads and Performance Max asset groups.',
      },
      {
        id: 'paid-social',
        name: 'Paid Social',
        description: 'Structures Meta, LinkedIn and TikTok campaigns with audience layering, lookalikes, creative testing frameworks and frequency caps.',
      },
      {
        id: 'media-planning',
        name: 'Media Planning & Budgeting',
        description: 'Produces media plans with channel budgets, flighting, forecasted CPM, CPC, CPA and ROAS, and pacing rules for the flight.',
      },
      {
        id: 'bidding-optimization',
        name: 'Bidding & Optimisation',
        description: 'Chooses bid strategies such as tCPA, tROAS and max conversions, manages learning phases, and runs search-term, placement and audience optimisation.',
      },
      {
        id: 'tracking-attribution',
        name: 'Tracking & Attribution',
        description: 'Specifies conversion events, pixels, Conversions API and enhanced conversions, UTM conventions and the attribution model used to judge spend.',
      },
      {
        id: 'incrementality-testing',
        name: 'Incrementality Testing',
        description: 'Designs geo-holdout and conversion-lift tests to measure the true incremental return of each channel beyond platform-reported results.',
      },
    ],
  },
  seo: {
    name: 'SEO Specialist',
    description:
      'Grows organic search traffic and visibility through technical, on-page and off-page SEO. Delivers audits, keyword strategies, content briefs and prioritised fix lists tied to rankings, clicks and conversions.',
    isSupervisor: false,
    subspecialties: [
      {
        id: 'technical-seo',
        name: 'Technical SEO',
        description: 'Audits crawlability, indexation, site architecture, canonicals, hreflang, structured data and Core Web Vitals, and outputs a fix list ranked by impact and effort.',
      },
      {
        id: 'keyword-research',
        name: 'Keyword Research',
        description: 'Builds keyword maps grouped by topic cluster and search intent, with volume, difficulty, SERP features and the target URL for each cluster.',
      },
      {
        id: 'on-page-optimization',
        name: 'On-Page Optimisation',
        description: 'Optimises title tags, meta descriptions, headings, internal links and content depth against the intent and competitors on the target SERP.',
      },
      {
        id: 'content-seo',
        name: 'Content Strategy & Briefs',
        description: 'Plans pillar-and-cluster content and writes briefs with target queries, outline, entities to cover, internal links and E-E-A-T requirements.',
      },
      {
        id: 'link-building',
        name: 'Link Building & Digital PR',
        description: 'Finds backlink gaps against competitors and plans digital PR, data-led assets and outreach to earn authoritative, relevant links.',
      },
      {
        id: 'local-seo',
        name: 'Local SEO',
        description: 'Optimises Google Business Profiles, NAP consistency, local citations, reviews and location pages for map-pack visibility.',
      },
    ],
  },
  'email-marketing': {
    name: 'Email Marketing Specialist',
    description:
      'Designs lifecycle and campaign email and SMS programmes that activate, retain and monetise customers. Delivers flow maps, segmentation, copy and deliverability plans measured on revenue per recipient and retention.',
    isSupervisor: false,
    subspecialties: [
      {
        id: 'lifecycle-automation',
        name: 'Lifecycle Automation',
        description: 'Maps and writes automated flows such as welcome, onboarding, abandoned cart, post-purchase, win-back and churn prevention, with triggers, delays and exit conditions.',
      },
      {
        id: 'segmentation-personalization',
        name: 'Segmentation & Personalisation',
        description: 'Builds segments from behaviour, RFM scores and lifecycle stage, and defines dynamic content and personalisation rules for each segment.',
      },
      {
        id: 'campaign-calendar',
        name: 'Campaign Planning & Copy',
        description: 'Plans the broadcast calendar and writes subject lines, preheaders and body copy with a clear single call to action and A/B test variants.',
      },
      {
        id: 'deliverability',
        name: 'Deliverability',
        description: 'Sets up SPF, DKIM and DMARC, domain warm-up, list hygiene and sunset policies to keep inbox placement high and spam complaints under 0.1%.',
      },
      {
        id: 'email-analytics',
        name: 'Email Analytics & Testing',
        description: 'Reports click-through, conversion, revenue per recipient and unsubscribe rates by flow and campaign, and runs structured tests on timing, offers and content.',
      },
      {
        id: 'list-growth',
        name: 'List Growth',
        description: 'Designs opt-in forms, lead magnets, pop-up rules and double opt-in flows that grow a consented list compliant with GDPR and CAN-SPAM.',
      },
    ],
  },
  creative: {
    name: 'Creative Director',
    description:
      'Develops campaign concepts, messaging and ad creative that stand out and convert. Delivers creative briefs, copy, scripts and design direction aligned to the brand and to channel specifications.',
    isSupervisor: false,
    subspecialties: [
      {
        id: 'campaign-concepts',
        name: 'Campaign Concepts',
        description: 'Generates big ideas and campaign territories from audience insight, with key visuals, taglines and how each concept extends across channels.',
      },
      {
        id: 'copywriting',
        name: 'Copywriting',
        description: 'Writes headlines, body copy and calls to action using proven frameworks such as PAS and AIDA, in the brand voice and within channel character limits.',
      },
      {
        id: 'ad-creative',
        name: 'Performance Ad Creative',
        description: 'Produces ad variants and modular creative for testing hooks, angles, formats and offers, with naming conventions that make results readable.',
      },
      {
        id: 'video-scripts',
        name: 'Video & Storyboards',
        description: 'Writes video scripts and shot-by-shot storyboards for short-form, UGC-style and brand films, sized for 9:16, 1:1 and 16:9 placements.',
      },
      {
        id: 'brand-identity',
        name: 'Brand Identity & Guidelines',
        description: 'Defines positioning, tone of voice, messaging pillars and visual guidelines so every asset across channels stays recognisably on-brand.',
      },
    ],
  },
  'web-developer': {
    name: 'Web Developer',
    description: 'Builds and maintains fast, trackable marketing websites and landing pages. Delivers page builds, analytics and tag implementations, and performance and accessibility fixes.',
    isSupervisor: false,
    subspecialties: [
      {
        id: 'landing-pages',
        name: 'Landing Page Development',
        description: 'Builds responsive landing pages and reusable section templates in the site CMS or framework so marketers can launch campaign pages without engineering.',
      },
      {
        id: 'analytics-implementation',
        name: 'Analytics & Tag Management',
        description: 'Implements GA4, Google Tag Manager, a data layer, conversion pixels and server-side tagging with a documented event taxonomy.',
      },
      {
        id: 'web-performance',
        name: 'Web Performance',
        description: 'Improves Core Web Vitals (LCP, INP, CLS) through image optimisation, code splitting, caching and third-party script control.',
      },
      {
        id: 'cms-management',
        name: 'CMS & Site Management',
        description: 'Configures and maintains CMS platforms such as WordPress, Webflow or Shopify, including content models, redirects, sitemaps and release workflows.',
      },
      {
        id: 'accessibility-compliance',
        name: 'Accessibility & Compliance',
        description: 'Brings pages to WCAG 2.2 AA and implements cookie consent and privacy requirements, including Consent Mode for analytics and ads.',
      },
      {
        id: 'forms-integrations',
        name: 'Forms & Integrations',
        description: 'Builds lead capture forms with validation and spam protection, and connects them to the CRM, marketing automation and enrichment tools.',
      },
    ],
  },
  cro: {
    name: 'Conversion Rate Optimisation Specialist',
    description: 'Increases the share of visitors who convert by finding friction and testing fixes. Delivers research findings, prioritised test roadmaps, experiment designs and results analysis.',
    isSupervisor: false,
    subspecialties: [
      {
        id: 'conversion-research',
        name: 'Conversion Research',
        description: 'Runs funnel analysis, heatmaps, session recordings, on-site surveys and user tests to find where and why visitors drop off.',
      },
      {
        id: 'ab-testing',
        name: 'A/B & Multivariate Testing',
        description: 'Designs experiments with a clear hypothesis, primary metric, minimum detectable effect, sample size and run time, and analyses results for statistical significance.',
      },
      {
        id: 'landing-page-optimization',
        name: 'Landing Page Optimisation',
        description: 'Improves message match, value proposition clarity, social proof, page hierarchy and calls to action on high-traffic landing pages.',
      },
      {
        id: 'checkout-form-optimization',
        name: 'Checkout & Form Optimisation',
        description: 'Reduces friction in sign-up, checkout and lead forms by cutting fields, adding trust signals and fixing error handling and mobile usability.',
      },
      {
        id: 'test-prioritization',
        name: 'Test Prioritisation',
        description: 'Maintains a test backlog scored with PIE or PXL so the highest-impact, best-evidenced ideas are run first.',
      },
      {
        id: 'onboarding-activation',
        name: 'Onboarding & Activation',
        description: 'Optimises in-product onboarding and first-run experiences to shorten time-to-value and lift activation rate.',
      },
    ],
  },
  'influencer-marketing': {
    name: 'Influencer Marketing Manager',
    description: 'Plans and runs creator partnerships that drive awareness, content and sales. Delivers creator shortlists, outreach, briefs, contracts guidance and ROI reporting.',
    isSupervisor: false,
    subspecialties: [
      {
        id: 'creator-discovery',
        name: 'Creator Discovery & Vetting',
        description: 'Builds creator shortlists by audience fit, engagement rate, audience demographics, brand safety and signs of fake followers.',
      },
      {
        id: 'outreach-negotiation',
        name: 'Outreach & Negotiation',
        description: 'Writes outreach sequences and negotiates rates, deliverables, usage rights, exclusivity and payment terms for each creator.',
      },
      {
        id: 'campaign-briefs',
        name: 'Campaign Briefs',
        description: "Writes creator briefs with key messages, do and don't lists, deliverables, timelines and FTC or ASA disclosure requirements while leaving room for the creator's own style.",
      },
      {
        id: 'ugc-whitelisting',
        name: 'UGC & Whitelisting',
        description: 'Sources UGC for ads and sets up whitelisting and Spark Ads so creator content can run as paid media from creator handles.',
      },
      {
        id: 'affiliate-ambassador',
        name: 'Affiliate & Ambassador Programmes',
        description: 'Designs long-term ambassador and affiliate programmes with commission structures, tracking links, discount codes and tiered rewards.',
      },
      {
        id: 'influencer-measurement',
        name: 'Measurement & ROI',
        description: 'Tracks reach, engagement, CPM, code and link conversions and earned media value per creator to decide who to renew and who to drop.',
      },
    ],
  },
  'demand-gen': {
    name: 'Demand Generation Manager',
    description: 'Creates and captures B2B demand that turns into qualified pipeline. Delivers ICP and account strategy, multi-channel programmes, lead management processes and pipeline reporting.',
    isSupervisor: false,
    subspecialties: [
      {
        id: 'icp-personas',
        name: 'ICP & Buyer Personas',
        description: "Defines the ideal customer profile from firmographics, technographics and win/loss data, and maps the buying committee with each role's pains and objections.",
      },
      {
        id: 'account-based-marketing',
        name: 'Account-Based Marketing',
        description: 'Builds tiered target-account lists and coordinated one-to-one, one-to-few and one-to-many plays across ads, email, direct mail and sales outreach.',
      },
      {
        id: 'content-offers',
        name: 'Content & Offers',
        description: 'Plans gated and ungated assets such as reports, webinars, calculators and case studies mapped to each buying stage.',
      },
      {
        id: 'lead-management',
        name: 'Lead Scoring & Routing',
        description: 'Defines MQL, SQL and PQL criteria, lead scoring models, routing rules and SLAs agreed with sales.',
      },
      {
        id: 'events-webinars',
        name: 'Events & Webinars',
        description: 'Runs webinars, virtual events and field events with promotion plans, follow-up sequences and pipeline attribution.',
      },
      {
        id: 'pipeline-analytics',
        name: 'Pipeline Analytics',
        description: 'Reports marketing-sourced and influenced pipeline, funnel conversion and velocity, and cost per opportunity by channel and campaign.',
      },
    ],
  },
}

export const AGENTS: readonly Agent[] = Object.freeze(AGENT_TYPES.map((type) => freezeAgent(type, SPECS[type])))

const BY_TYPE: ReadonlyMap<AgentType, Agent> = new Map(AGENTS.map((agent) => [agent.type, agent]))

export function findAgent(type: AgentType): Agent {
  const agent = BY_TYPE.get(type)
  if (agent === undefined) {
    // Unreachable for well-typed callers; guards against unchecked casts from request input.
    throw new Error(`unknown agent type: ${String(type)}`)
  }
  return agent
}

export const SPECIALIST_TYPES: readonly AgentType[] = Object.freeze(AGENT_TYPES.filter((type) => type !== 'growth-marketer'))

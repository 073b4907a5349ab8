import type { AgentPlaybook } from './types.js'

export const seo: AgentPlaybook = {
  role: 'Compounds organic search traffic with content and technical fixes',
  keywords: ['seo', 'organic', 'search', 'rank', 'rankings', 'google', 'serp', 'traffic', 'blog'],
  kpis: [
    'Non-brand organic clicks and impressions (Search Console)',
    'Rankings for each target keyword cluster',
    'Organic conversions and conversion rate',
    'Indexed pages against submitted pages',
    'New referring domains from relevant sites',
  ],
  approvals: ['Publishing new pages or changing live content, titles or metadata', 'Changing redirects, robots.txt or canonicals', 'Sending outreach emails to publishers'],
  subspecialties: {
    'technical-seo': {
      keywords: ['technical', 'audit', 'crawl', 'crawlability', 'indexation', 'indexing', 'schema', 'structured', 'canonical', 'vitals', 'sitemap', 'speed'],
      actions: [
        'Crawl {site} and list indexation, canonical, redirect and broken-link issues.',
        'Check Core Web Vitals and structured data on the top page templates.',
        'Rank the fixes by impact × effort and hand the top 10 to the web developer.',
      ],
      deliverable: 'Technical SEO audit with prioritised fix list',
    },
    'keyword-research': {
      keywords: ['keyword', 'keywords', 'research', 'intent', 'query', 'queries', 'volume', 'topic', 'topics'],
      actions: [
        'Collect the queries {audience} use across the buying journey in {industry}, from seed terms and competitor rankings.',
        'Group keywords into topic clusters by search intent, with volume, difficulty and SERP features.',
        'Assign one target URL per cluster so pages do not cannibalise each other.',
      ],
      deliverable: 'Keyword map by cluster, intent and target URL',
    },
    'on-page-optimization': {
      keywords: ['page', 'pages', 'title', 'titles', 'meta', 'metadata', 'heading', 'headings', 'internal', 'ctr'],
      actions: [
        'Rewrite title tags and meta descriptions for the 20 pages with the most impressions and below-average CTR.',
        'Align headings and content depth with the intent of the pages that rank today.',
        'Add internal links from strong pages to the pages you want to rank.',
      ],
      deliverable: 'On-page recommendations per target URL',
    },
    'content-seo': {
      keywords: ['content', 'blog', 'article', 'articles', 'brief', 'briefs', 'pillar', 'cluster', 'writing', 'guide', 'guides'],
      actions: [
        'Plan one pillar page and 6–8 cluster articles around the main topic {company} should own.',
        'Write a brief per article: target query, outline, entities to cover, internal links and E-E-A-T evidence.',
        'Use first-hand product and customer expertise from {company} in every piece so none of it reads as generic.',
      ],
      deliverable: 'Pillar-and-cluster content plan with article briefs',
    },
    'link-building': {
      keywords: ['link', 'links', 'backlink', 'backlinks', 'pr', 'outreach', 'authority', 'press', 'mentions'],
      actions: [
        'Find backlink gaps: sites that link to two or more competitors but not to {company}.',
        'Plan one data-led asset (a survey or index for {industry}) worth linking to.',
        'Draft personalised outreach to 30 relevant publishers and journalists.',
      ],
      deliverable: 'Link-building and digital PR plan',
    },
    'local-seo': {
      keywords: ['local', 'maps', 'map', 'gbp', 'citation', 'citations', 'review', 'reviews', 'location', 'locations', 'near', 'store'],
      actions: [
        'Claim and complete the Google Business Profile: categories, services, photos and opening hours.',
        'Make the business name, address and phone identical across the top citation sites.',
        'Set up a review request routine and build a page for each location you serve.',
      ],
      deliverable: 'Local SEO checklist',
    },
  },
}

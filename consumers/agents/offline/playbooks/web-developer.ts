import type { AgentPlaybook } from './types.js'

export const webDeveloper: AgentPlaybook = {
  role: 'Makes the site fast, trackable and ready for campaign traffic',
  keywords: ['website', 'site', 'web', 'developer', 'landing', 'page', 'pages', 'code', 'tracking'],
  kpis: [
    'Core Web Vitals pass rate (LCP < 2.5 s, INP < 200 ms, CLS < 0.1)',
    'Landing page conversion rate',
    'Days from brief to a live campaign page',
    'Tracking coverage: events firing as specified',
    'Form submission success rate and open WCAG issues',
  ],
  approvals: ['Deploying changes to the live site', 'Changing tag manager containers or consent settings in production'],
  subspecialties: {
    'landing-pages': {
      keywords: ['landing', 'page', 'pages', 'website', 'site', 'build', 'template', 'templates', 'microsite', 'launch'],
      actions: [
        'Build a responsive landing page for the brief: hero, proof, benefits, FAQ and one call to action.',
        'Make the sections reusable in the CMS so marketers at {company} can launch pages without engineering.',
        'Deploy to a staging URL of {site} for review before release.',
      ],
      deliverable: 'Landing page template on staging',
    },
    'analytics-implementation': {
      keywords: ['analytics', 'ga4', 'gtm', 'tag', 'tags', 'tracking', 'pixel', 'pixels', 'datalayer', 'event', 'events', 'measurement'],
      actions: [
        'Write the event taxonomy (names and parameters) and the data layer specification.',
        'Implement GA4 and the conversion pixels through Google Tag Manager; consider server-side tagging.',
        'Test every event in preview mode and document it next to the taxonomy.',
      ],
      deliverable: 'Event taxonomy and tag implementation plan',
    },
    'web-performance': {
      keywords: ['performance', 'speed', 'fast', 'slow', 'vitals', 'lcp', 'inp', 'cls', 'image', 'images', 'loading'],
      actions: [
        'Measure Core Web Vitals on the top templates of {site} from field data.',
        'Optimise images (modern formats, correct sizes), split code and defer non-critical scripts.',
        'Audit third-party tags and remove or delay those that block rendering.',
      ],
      deliverable: 'Performance fix list with before/after metrics',
    },
    'cms-management': {
      keywords: ['cms', 'wordpress', 'webflow', 'shopify', 'redirect', 'redirects', 'sitemap', 'migration', 'release'],
      actions: [
        'Review the CMS content models and make campaign pages editable by marketers.',
        'Keep redirects and the XML sitemap current with every release.',
        'Set a release workflow: staging, review, publish, rollback.',
      ],
      deliverable: 'CMS configuration and release workflow',
    },
    'accessibility-compliance': {
      keywords: ['accessibility', 'accessible', 'wcag', 'a11y', 'compliance', 'cookie', 'cookies', 'consent', 'privacy', 'gdpr'],
      actions: [
        'Audit key pages against WCAG 2.2 AA: contrast, keyboard use, alt text and form labels.',
        'Implement a cookie consent banner and Consent Mode for analytics and ads.',
        'Document the privacy requirements every new page must meet.',
      ],
      deliverable: 'Accessibility and consent audit',
    },
    'forms-integrations': {
      keywords: ['form', 'forms', 'integration', 'integrations', 'crm', 'hubspot', 'salesforce', 'lead', 'leads', 'capture'],
      actions: [
        'Build lead forms with validation, spam protection and only the fields sales needs.',
        'Connect the forms to the CRM and marketing automation, passing source and UTM fields.',
        'Test the whole path from submission to CRM record and follow-up email.',
      ],
      deliverable: 'Lead form and CRM integration specification',
    },
  },
}

import type { AgentPlaybook } from './types.js'

export const cro: AgentPlaybook = {
  role: 'Converts more of the traffic the other channels bring',
  keywords: ['cro', 'conversion', 'conversions', 'convert', 'optimisation', 'optimization', 'funnel', 'experiment'],
  kpis: [
    'Conversion rate per page and per funnel step',
    'Drop-off rate at each funnel step',
    'Test win rate and cumulative lift',
    'Form and checkout completion rate',
    'Activation rate and time to value',
  ],
  approvals: ['Launching tests on live traffic', 'Shipping winning variants to production'],
  subspecialties: {
    'conversion-research': {
      keywords: ['research', 'funnel', 'heatmap', 'heatmaps', 'recording', 'recordings', 'survey', 'surveys', 'friction', 'drop', 'audit'],
      actions: [
        'Analyse the funnel and find the step where {audience} drop off most.',
        'Review heatmaps and 30 session recordings of that step and list the friction points.',
        'Run a one-question on-site survey: "What almost stopped you today?"',
      ],
      deliverable: 'Conversion research findings',
    },
    'ab-testing': {
      keywords: ['ab', 'test', 'tests', 'testing', 'experiment', 'experiments', 'multivariate', 'variant', 'variants', 'significance'],
      actions: [
        'Write each test as a hypothesis: because we saw X, changing Y will lift Z.',
        'Fix the primary metric, minimum detectable effect, sample size and run time before launch.',
        'Run tests for whole weeks and analyse for significance; no early stopping.',
      ],
      deliverable: 'Experiment designs with hypotheses and sample sizes',
    },
    'landing-page-optimization': {
      keywords: ['landing', 'page', 'pages', 'message', 'value', 'proposition', 'headline', 'cta', 'hero', 'proof'],
      actions: [
        'Check message match between each ad and its landing page headline.',
        'Make the value proposition for {audience} clear within five seconds, and test it.',
        'Put social proof (reviews, logos, numbers) next to the call to action.',
      ],
      deliverable: 'Landing page optimisation recommendations',
    },
    'checkout-form-optimization': {
      keywords: ['checkout', 'form', 'forms', 'signup', 'cart', 'field', 'fields', 'mobile', 'payment', 'registration'],
      actions: [
        'Remove every form field that is not needed now; ask for the rest later.',
        'Add trust signals and clear error messages, and fix mobile usability issues.',
        'Offer guest checkout or single sign-on where possible.',
      ],
      deliverable: 'Checkout and form fix list',
    },
    'test-prioritization': {
      keywords: ['prioritise', 'prioritize', 'priorities', 'backlog', 'roadmap', 'pie', 'pxl', 'ideas'],
      actions: [
        'Put every test idea into one backlog and score it with PXL.',
        'Run the highest-scoring, best-evidenced ideas first and cap work in progress.',
        'Re-score the backlog every two weeks with new research and results.',
      ],
      deliverable: 'Prioritised test roadmap',
    },
    'onboarding-activation': {
      keywords: ['onboarding', 'activation', 'activate', 'trial', 'users', 'aha', 'retention', 'product', 'signup'],
      actions: [
        "Define the activation event (the aha moment) for {company}'s product and measure the time to reach it.",
        'Cut steps from the first-run experience; add a checklist and empty states that teach.',
        'Trigger help (email or in-app) when a new user stalls.',
      ],
      deliverable: 'Onboarding and activation plan',
    },
  },
}

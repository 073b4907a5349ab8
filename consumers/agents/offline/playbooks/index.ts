import type { AgentType } from '../../../../src/domain/agents/catalogue.js'
import { creative } from './creative.js'
import { cro } from './cro.js'
import { demandGen } from './demand-gen.js'
import { emailMarketing } from './email-marketing.js'
import { growthMarketer } from './growth-marketer.js'
import { influencerMarketing } from './influencer-marketing.js'
import { organicSocial } from './organic-social.js'
import { paidMedia } from './paid-media.js'
import { seo } from './seo.js'
import type { AgentPlaybook, SubspecialtyPlaybook } from './types.js'
import { webDeveloper } from './web-developer.js'

export type { AgentPlaybook, SubspecialtyPlaybook } from './types.js'

/** Keyed by AgentType so the compiler rejects a missing agent. */
export const PLAYBOOKS: { readonly [T in AgentType]: AgentPlaybook } = {
  'growth-marketer': growthMarketer,
  'organic-social': organicSocial,
  'paid-media': paidMedia,
  seo,
  'email-marketing': emailMarketing,
  creative,
  'web-developer': webDeveloper,
  cro,
  'influencer-marketing': influencerMarketing,
  'demand-gen': demandGen,
}

/** The playbook entry for a subspecialty, or undefined when the catalogue has one the playbooks lack. */
export function subspecialtyPlaybook(type: AgentType, subspecialtyId: string): SubspecialtyPlaybook | undefined {
  return Object.hasOwn(PLAYBOOKS[type].subspecialties, subspecialtyId) ? PLAYBOOKS[type].subspecialties[subspecialtyId] : undefined
}

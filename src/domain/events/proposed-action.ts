import { Type } from 'typebox'
import { Nullable } from './common.js'

/** A change on a live platform that an agent wants made; shared by TaskActionProposed and ActionApproved. */
export const ProposedAction = {
  platform: Type.String({ minLength: 1, maxLength: 60, description: 'Where it would happen (`linkedin`, `google-ads`, `mailchimp`, `website`...).' }),
  action: Type.String({ minLength: 1, maxLength: 80, description: 'What kind of change, in a few words (`publish post`, `raise daily budget`...).' }),
  summary: Type.String({ minLength: 1, maxLength: 300, description: 'One sentence a person can approve or reject.' }),
  content: Nullable(Type.String({ maxLength: 8000 }), { description: 'The draft itself (post text, email body, new budget), when there is one.' }),
}

import type { ActionStatus } from '../../../src/domain/actions/proposed-action.js'
import type { RunRecord } from './tools.js'

const STATUS_LABEL: { readonly [S in ActionStatus]: string } = {
  draft: 'Draft (nothing changed)',
  pending_approval: 'Awaiting approval (nothing changed yet)',
  not_executed: 'Not executed: no connector for this platform is reachable',
  executed: 'Executed',
}

/**
 * The task's result: the model's deliverable, then what the run proposed and delegated,
 * stated by the service rather than the model, so a reader knows exactly what changed.
 */
export function renderResult(deliverable: string, record: RunRecord): string {
  const sections = [deliverable]
  if (record.delegations.length > 0) {
    sections.push(['## Delegated tasks', '', ...record.delegations.map((d) => `- ${d.agentType}: task ${d.taskId}, ${d.status}${d.status === 'failed' && d.error ? ` (${d.error})` : ''}`)].join('\n'))
  }
  if (record.actions.length > 0) {
    const pending = record.actions.filter((a) => a.status === 'pending_approval').length
    sections.push(
      [
        '## Proposed actions',
        '',
        pending > 0
          ? `${pending} of ${record.actions.length} await approval; nothing below changed a live platform unless it says Executed.`
          : 'Nothing below changed a live platform unless it says Executed.',
        '',
        ...record.actions.flatMap((a, i) => [
          `${i + 1}. **${a.action}** on ${a.platform}: ${a.summary}`,
          `   - Status: ${STATUS_LABEL[a.status]}${a.note ? `; ${a.note}` : ''}`,
          `   - Action id: ${a.actionId}`,
          ...(a.content ? ['   - Draft:', '', ...a.content.split('\n').map((line) => `     > ${line}`), ''] : []),
        ]),
      ].join('\n'),
    )
  }
  return sections.join('\n\n')
}

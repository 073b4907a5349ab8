import type { ModelReply, ModelRequestView } from '../fakes/model-server.js'

/**
 * A fake model for the console's browser tests, steered by words in the brief:
 * `PROPOSE` proposes one LinkedIn post (then reports), `HANG` never answers (a task that stays
 * running until cancelled), `GATE-name` answers once the test opens that gate, `ANSWER:` answers
 * with whatever follows it, and anything else answers at once.
 */
export function consoleModel() {
  const gates = new Map<string, { open: () => void; opened: Promise<void> }>()
  const gate = (name: string) => {
    let open: () => void = () => undefined
    const opened = new Promise<void>((resolve) => {
      open = resolve
    })
    const made = gates.get(name) ?? { open, opened }
    gates.set(name, made)
    return made
  }

  async function script(request: ModelRequestView): Promise<ModelReply> {
    const { brief, turn } = request
    if (brief.includes('HANG')) return { hang: true }
    if (brief.includes('PROPOSE') && turn === 0) {
      return { text: '', calls: [{ name: 'propose_action', args: { platform: 'linkedin', action: 'publish post', summary: 'Announce the spring launch', content: 'Spring is here.' } }] }
    }
    const gated = /GATE-(\w+)/.exec(brief)?.[1]
    if (gated) await gate(gated).opened
    const answer = /ANSWER:([\s\S]*)$/.exec(brief)?.[1]
    return { text: answer ?? '# Plan\n\n- Audit the landing page\n- Draft three posts' }
  }

  return { script, openGate: (name: string) => gate(name).open() }
}

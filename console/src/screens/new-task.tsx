import { useState } from 'preact/hooks'
import { post } from '../api.js'
import { navigate } from '../router.js'
import type { Agent, BatchResult, Session, Task } from '../types.js'
import { Field, Problem } from '../ui/bits.js'
import { useApi } from '../use-api.js'
import { BatchResults, SessionChoices } from './batch.js'

const PRIORITIES = ['normal', 'high', 'low'] as const

/** Brief an agent: in one session (the new task opens) or in several at once (POST /v1/tasks/batch: one result row each). */
export function NewTask(props: { query: URLSearchParams }) {
  const agents = useApi<{ agents: Agent[] }>('/v1/agents')
  const sessions = useApi<{ sessions: Session[] }>('/v1/sessions?limit=100')
  const [agentType, setAgentType] = useState('growth-marketer')
  const [sessionId, setSessionId] = useState(props.query.get('sessionId') ?? '')
  const [several, setSeveral] = useState(false)
  const [chosen, setChosen] = useState<Set<string>>(new Set())
  const [instruction, setInstruction] = useState('')
  const [priority, setPriority] = useState<(typeof PRIORITIES)[number]>('normal')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const [batch, setBatch] = useState<{ sent: string[]; results: BatchResult[] } | null>(null)
  const chosenAgent = agents.data?.agents.find((agent) => agent.type === agentType)
  const session = sessionId || sessions.data?.sessions[0]?.id || ''
  const known = sessions.data?.sessions ?? []

  const createOne = async () => {
    const { task } = await post<{ task: Task }>('/v1/tasks', { sessionId: session, agentType, instruction, priority })
    navigate(`/tasks/${task.id}`)
  }
  const createMany = async () => {
    const sent = known.filter((s) => chosen.has(s.id)).map((s) => s.id)
    const { results } = await post<{ results: BatchResult[] }>('/v1/tasks/batch', { tasks: sent.map((id) => ({ sessionId: id, agentType, instruction, priority })) })
    setBatch({ sent, results })
    setBusy(false)
  }
  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError('')
    setBatch(null)
    try {
      await (several ? createMany() : createOne())
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
      setBusy(false)
    }
  }

  return (
    <>
      <h1>New task</h1>
      <Problem error={agents.error ?? sessions.error} />
      {known.length === 0 && sessions.data && <p>Create a session first (Sessions): a task belongs to one.</p>}
      <form class="stack" onSubmit={submit}>
        <Field id="task-agent" label="Agent">
          <select id="task-agent" value={agentType} onChange={(e) => setAgentType(e.currentTarget.value)} aria-describedby="agent-help">
            {agents.data?.agents.map((agent) => (
              <option key={agent.type} value={agent.type}>
                {agent.name}
              </option>
            ))}
          </select>
        </Field>
        <p id="agent-help" class="hint">
          {chosenAgent ? `${chosenAgent.description} Subspecialties: ${chosenAgent.subspecialties.map((subspecialty) => subspecialty.name).join(', ')}.` : ''}
        </p>
        {/* A toggle button, not a checkbox: a label with "sessions" in it would also answer to the Session field's name. */}
        <p>
          <button type="button" class="secondary" aria-pressed={several} onClick={() => setSeveral(!several)}>
            Several sessions at once
          </button>
        </p>
        {several ? (
          <SessionChoices sessions={known} chosen={chosen} onChange={setChosen} />
        ) : (
          <Field id="task-session" label="Session">
            <select id="task-session" value={session} onChange={(e) => setSessionId(e.currentTarget.value)} required>
              {known.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} ({s.companyName ?? s.industry})
                </option>
              ))}
            </select>
          </Field>
        )}
        <Field id="task-instruction" label="Instruction">
          <textarea id="task-instruction" rows={6} minLength={4} maxLength={4000} required value={instruction} onInput={(e) => setInstruction(e.currentTarget.value)} />
        </Field>
        <Field id="task-priority" label="Priority">
          <select id="task-priority" value={priority} onChange={(e) => setPriority(PRIORITIES.find((p) => p === e.currentTarget.value) ?? 'normal')}>
            {PRIORITIES.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </Field>
        {error && <p role="alert">{error}</p>}
        {several ? (
          <button type="submit" disabled={busy || chosen.size === 0}>
            Create {chosen.size} {chosen.size === 1 ? 'task' : 'tasks'}
          </button>
        ) : (
          <button type="submit" disabled={busy || !session}>
            Create task
          </button>
        )}
      </form>
      {batch && <BatchResults results={batch.results} sessions={known} sent={batch.sent} />}
    </>
  )
}

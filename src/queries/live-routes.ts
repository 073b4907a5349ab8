import type { RecordedEvent } from '../domain/message.js'
import type { Inbox } from './inbox.js'

/** The open feeds and waits of one account: those that follow the whole account, and those that follow one task. */
interface AccountRoutes {
  readonly feeds: Set<Inbox>
  readonly tasks: Map<string, Set<Inbox>>
}

/**
 * Where the live events of this process go: inboxes by account (GET /v1/events) and by task
 * (GET /v1/tasks/{id}/events, waitSeconds). Routing an event touches only the inboxes of its
 * own account and task, so an account with many open streams costs the others nothing but
 * a map lookup (invariant 12).
 */
export class LiveRoutes {
  private readonly accounts = new Map<string, AccountRoutes>()
  private count = 0

  /** Inboxes registered now. */
  get size(): number {
    return this.count
  }

  /** Routes the events of the account (or of its task `taskId`) to `inbox`; the answer removes it, and says whether it was still there. */
  add(accountId: string, taskId: string | null, inbox: Inbox): () => boolean {
    const routes = this.accounts.get(accountId) ?? { feeds: new Set<Inbox>(), tasks: new Map<string, Set<Inbox>>() }
    this.accounts.set(accountId, routes)
    const set = taskId === null ? routes.feeds : (routes.tasks.get(taskId) ?? new Set<Inbox>())
    if (taskId !== null) routes.tasks.set(taskId, set)
    set.add(inbox)
    this.count++
    return () => {
      if (!set.delete(inbox)) return false
      this.count--
      if (taskId !== null && set.size === 0) routes.tasks.delete(taskId)
      if (routes.feeds.size === 0 && routes.tasks.size === 0) this.accounts.delete(accountId)
      return true
    }
  }

  /** Hands the event to every inbox that follows its account or its task (none for a schedule's event); `event` decodes it, only when someone does. */
  deliver(accountId: string, taskId: string | null, event: () => RecordedEvent | null): void {
    const routes = this.accounts.get(accountId)
    if (!routes) return
    const ofTask = taskId === null ? undefined : routes.tasks.get(taskId)
    if (routes.feeds.size === 0 && !ofTask) return
    const decoded = event()
    if (!decoded) return
    for (const inbox of routes.feeds) inbox.push(decoded)
    if (ofTask) for (const inbox of ofTask) inbox.push(decoded)
  }

  /** Ends every inbox (the shared consumer stopped): each feed ends or each wait answers, and their owners release them. */
  endAll(reason: Error): void {
    for (const routes of this.accounts.values()) {
      for (const inbox of routes.feeds) inbox.end(reason)
      for (const set of routes.tasks.values()) for (const inbox of set) inbox.end(reason)
    }
  }
}

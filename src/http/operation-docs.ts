/**
 * What each operation does and what its success answer holds, for the OpenAPI document
 * (GET /v1/openapi.json, /v1/docs and the typed client), by operationId. The route schemas carry
 * the one-line summaries and the error answers; a test fails when an operation has no entry here.
 */
export interface OperationDoc {
  readonly description: string
  /** The description of each success status. */
  readonly answers: Readonly<Record<string, string>>
}

export const OPERATION_DOCS: Readonly<Record<string, OperationDoc>> = {
  getOpenApi: {
    description:
      'The OpenAPI 3.1 document of /v1, generated from the schemas that validate the routes: named component schemas, the error codes of each status, the headers of each answer. No key needed; limited per client address. Rendered at /v1/docs.',
    answers: { 200: 'The document' },
  },
  listAgents: {
    description:
      'The ten agents a task can be given to, with their names, descriptions and subspecialties. growth-marketer is the supervisor: it can delegate parts of a brief to the nine specialists.',
    answers: { 200: 'The ten agents, supervisor first' },
  },
  listSessions: {
    description: "The caller's sessions, newest first, a page at a time.",
    answers: { 200: 'A page of sessions and where it is in the whole list' },
  },
  getSession: {
    description:
      "One session as stored: its name, the company context given at creation (companyName, companyUrl, industry, targetAudience), its autonomy and how many facts its runs have learned. Found as soon as POST /v1/sessions answered; another account's session is not found.",
    answers: { 200: 'The session' },
  },
  createSession: {
    description:
      'A session is a workspace, usually one per company: the company context agents work from (name, site, industry, audience) and how far they may act on their own (autonomy). Send Idempotency-Key to make a retry safe.',
    answers: { 201: 'The session, created' },
  },
  createTask: {
    description:
      'Gives one agent a plain-English instruction. The task is stored and answered at once (pending), then runs in the background; it is never retried automatically. With waitSeconds the answer waits until the task ends or that time passes. An identical brief still pending in the session is a 409 naming it; a spent monthly budget a 402. Send Idempotency-Key to make a retry safe; Location names the task.',
    answers: { 201: 'The task: pending, or as it ended when waitSeconds was given and it ended in time' },
  },
  listTasks: {
    description: "The caller's tasks, newest first, a page at a time, optionally of one session, status or agent. A task created just before is always in it.",
    answers: { 200: 'A page of tasks and where it is in the whole list' },
  },
  getTask: {
    description: "One task as its events leave it: status, the agent's result once completed, the error once failed. Another account's task is not found.",
    answers: { 200: 'The task' },
  },
  cancelTask: {
    description:
      'Stops a task. A pending one ends at once; a running one is aborted on the worker that runs it, within moments, and what it spent is recorded. Either way it ends failed, its error beginning with "cancelled"; delegated tasks of a supervisor end with it. A task that has already ended is a 409.',
    answers: { 200: 'The task as it stands: failed, or still running if its worker has not answered within 3 s' },
  },
  streamTaskEvents: {
    description:
      "The task's events as Server-Sent Events, from the first (or after Last-Event-ID), then live until TaskCompleted or TaskFailed, when the server ends the stream. EventSource cannot send the Authorization header: use a server-side proxy or a fetch-based client (docs/tasks.md). An account may hold SSE_MAX_STREAMS_PER_ACCOUNT streams open at once on one server (100 by default); one more is a 429 (`rate_limited`, Retry-After).",
    answers: {
      200: "A `text/event-stream` (Server-Sent Events): each of the task's events, from the first (or after `Last-Event-ID`), as `id: <stream sequence>`, `event: <event type>` and `data: <the event envelope as JSON, see docs/events.md>`; the stream ends after `TaskCompleted` or `TaskFailed`. Comment lines (`: keep-alive`) keep an idle connection open. The schema describes one event, `data` by its `contentSchema` (OpenAPI 3.1 has no schema for a stream).",
    },
  },
  listTaskActions: {
    description:
      "The write actions a task's run proposed (a post to publish, a budget to change), in order, each with its status: draft, pending_approval, approved, rejected, executed, execution_failed or not_executed.",
    answers: { 200: "The task's proposed actions" },
  },
  listPendingApprovals: {
    description: "The account's actions awaiting a human decision, newest first, a page at a time.",
    answers: { 200: 'A page of actions awaiting approval' },
  },
  approveAction: {
    description:
      'Approves an action awaiting approval. A connector configured for its platform carries it out (executed or execution_failed follow); otherwise it stays approved for your own integration to carry out. Any other status is a 409.',
    answers: { 200: 'The action, approved' },
  },
  rejectAction: {
    description: 'Rejects an action awaiting approval, with an optional reason: nothing is changed on the platform. Any other status is a 409.',
    answers: { 200: 'The action, rejected' },
  },
  getMe: {
    description: 'The API key that authenticated this request: its id, prefix, name, account, creation, expiry and last use. Never the key itself.',
    answers: { 200: 'The key' },
  },
  createWebhook: {
    description:
      "Registers an HTTPS URL (or HTTP to a public address) to receive the account's task events as signed POSTs (Standard Webhooks), at least once, in order per task, retried for 24 h. The signing secret is answered once, here.",
    answers: { 201: 'The webhook and its signing secret (whsec_…), shown only now' },
  },
  listWebhooks: {
    description: "The caller's webhooks, newest first, without their secrets.",
    answers: { 200: 'The webhooks' },
  },
  deleteWebhook: {
    description: 'Deletes a webhook: no delivery is attempted after this, retries included.',
    answers: { 204: 'Deleted' },
  },
  rotateWebhookSecret: {
    description:
      "Gives the webhook a new signing secret, answered once, here. For the next 24 h every delivery carries two signatures in webhook-signature, one per secret, so a receiver holding either verifies it; then only the new one. Rotating again within the 24 h ends the older secret at once. 404 for an unknown or another account's webhook.",
    answers: { 200: 'The webhook, its new signing secret (whsec_…), shown only now, and until when the old one still signs' },
  },
  listWebhookDeliveries: {
    description: "A webhook's latest delivery attempts, newest first: the event, the task, the attempt number, the receiver's status code or the error, and whether it will be retried.",
    answers: { 200: 'The latest delivery attempts' },
  },
}

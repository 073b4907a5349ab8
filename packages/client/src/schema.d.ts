// Generated from docs/openapi.json by `npm run docs:openapi` (openapi-typescript); do not edit.

export interface paths {
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This document (OpenAPI 3.1)
         * @description The OpenAPI 3.1 document of /v1, generated from the schemas that validate the routes: named component schemas, the error codes of each status, the headers of each answer. No key needed; limited per client address. Rendered at /v1/docs.
         */
        get: operations["getOpenApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the ten agents with their specialties
         * @description The ten agents a task can be given to, with their names, descriptions and subspecialties. growth-marketer is the supervisor: it can delegate parts of a brief to the nine specialists.
         */
        get: operations["listAgents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the caller's sessions, newest first
         * @description The caller's sessions, newest first, a page at a time.
         */
        get: operations["listSessions"];
        put?: never;
        /**
         * Create a session (a workspace, usually one per company)
         * @description A session is a workspace, usually one per company: the company context agents work from (name, site, industry, audience) and how far they may act on their own (autonomy). Send Idempotency-Key to make a retry safe.
         */
        post: operations["createSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One session: its company context, autonomy and what its runs learned
         * @description One session as stored: its name, the company context given at creation (companyName, companyUrl, industry, targetAudience), its autonomy and how many facts its runs have learned. Found as soon as POST /v1/sessions answered; another account's session is not found.
         */
        get: operations["getSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a session's autonomy
         * @description Changes how far agents may act on live platforms in this session (autonomy: draft-only, approval-required or autonomous); runs that start afterwards follow it, a running one keeps what it started with. Setting the autonomy the session already has records nothing. The company context stays as given at creation. Another account's session is not found.
         */
        patch: operations["updateSession"];
        trace?: never;
    };
    "/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List recent tasks, newest first
         * @description The caller's tasks, newest first, a page at a time, optionally narrowed by session, status, agent, priority and a creation window (createdFrom inclusive, createdTo exclusive); the filters combine. A task created just before is always in it. Follow `pagination.nextCursor` (as `cursor`) for the next page: it costs the same at any depth, where `page` skips what the pages before hold. Unfiltered or by status alone, `total` is a stored count (GET /v1/tasks/counts); with other filters the matches are counted up to 1,000 and past that `total` is 1,000 with `totalExact` false ("1,000+"), so a page costs the same at any history.
         */
        get: operations["listTasks"];
        put?: never;
        /**
         * Create a task: an agent run from a plain-English instruction, queued at once
         * @description Gives one agent a plain-English instruction. The task is stored and answered at once (pending), then runs in the background; it is never retried automatically. With waitSeconds the answer waits until the task ends or that time passes. An identical brief still pending in the session is a 409 naming it; a spent monthly budget a 402. Send Idempotency-Key to make a retry safe; Location names the task.
         */
        post: operations["createTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tasks/counts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How many of the caller's tasks are in each status
         * @description How many of the caller's tasks are pending, running, completed and failed, and all of them: counts kept by the projector as tasks move (one small document per account), so the answer costs the same at any history. A task created or ended just before is counted (the answer waits up to 2 s for the projector to reach what the log held when asked).
         */
        get: operations["countTasks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tasks/{taskId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One task's status, result and error
         * @description One task as its events leave it: status, the agent's result once completed, the error once failed. Another account's task is not found.
         */
        get: operations["getTask"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tasks/{taskId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a task: a pending one ends at once, a running one is stopped within moments; it ends failed, its error beginning with "cancelled"
         * @description Stops a task. A pending one ends at once; a running one is aborted on the worker that runs it, within moments, and what it spent is recorded. Either way it ends failed, its error beginning with "cancelled"; delegated tasks of a supervisor end with it. A task that has already ended is a 409.
         */
        post: operations["cancelTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tasks/{taskId}/rerun": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-run a task: a new task with the same session, agent, instruction and priority, linked to it both ways
         * @description Creates a new task with the session, agent, instruction, title and priority of this one, whatever its status: completed, failed, cancelled or running. The new task carries rerunOf, and this one lists it in reruns, both stored at once. Every rule of POST /v1/tasks applies: an identical brief still pending (this task itself, when it is pending) is a 409 naming it, a spent budget a 402, and it spends one from the tasks.create rate limit. Another account's task is not found. Send Idempotency-Key to make a retry safe; Location names the new task.
         */
        post: operations["rerunTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tasks/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create up to 100 tasks in one call: each body of POST /v1/tasks created or refused on its own, answered in order
         * @description Creates up to 100 tasks in one call, e.g. one brief for each of an agency's client sessions. Each body is what POST /v1/tasks takes, and is created or refused exactly as it would be alone, in the order sent: results holds one entry per body, { status: 201, task } or { status, error, code } (400 naming tasks[i].field, 402, 404, 409, 429). A bad body never fails the others. Each body spends one from the tasks.create rate limit; the bodies past the quota are answered 429 (retryAfter), and a batch of which no body is admitted is a 429 as a whole. With waitSeconds on some bodies, the answer comes when the longest wait is over. Send Idempotency-Key to make a retry safe: a retry with the same key and body answers the same results and creates nothing, except that a body answered 503 but stored afterwards (NATS slow to acknowledge it) is then answered 201 with its task.
         */
        post: operations["createTaskBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tasks/{taskId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow a task's events live (Server-Sent Events) until it ends
         * @description The task's events as Server-Sent Events, from the first (or after Last-Event-ID), then live until TaskCompleted or TaskFailed, when the server ends the stream. EventSource cannot send the Authorization header: use a server-side proxy or a fetch-based client (docs/tasks.md). An account may hold SSE_MAX_STREAMS_PER_ACCOUNT streams open at once on one server (100 by default); one more is a 429 (`rate_limited`, Retry-After).
         */
        get: operations["streamTaskEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/schedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the caller's schedules, newest first
         * @description The caller's schedules (paused ones too, deleted ones not), newest first, optionally of one session; paginated like tasks.
         */
        get: operations["listSchedules"];
        put?: never;
        /**
         * Create a schedule: a task with this brief at each tick of a cron expression or interval
         * @description Creates a task with the given brief at each tick: of `cron` (5 or 6 fields, read in `timezone`, so 09:00 Europe/Berlin stays 09:00 there across DST) or of `every` (at least 1s). Each tick creates exactly one task (scheduleId and scheduledFor set), or is recorded as skipped with why: overlap (overlap skip, the previous task still pending or running), budget_exhausted, rate_limited, session_missing, outside_catchup_window. Ticks do not spend the account's HTTP rate limits. An account has at most SCHEDULES_PER_ACCOUNT schedules (500 by default, paused ones count): 409 schedule_limit_reached past it. 404 for a session not the caller's.
         */
        post: operations["createSchedule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/schedules/{scheduleId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A schedule, its next fire times and its latest ticks
         * @description A schedule with its next five fire times and its latest ticks (recentFirings, newest first): each with the task it created, or skipped with why. Another account's schedule is not found.
         */
        get: operations["getSchedule"];
        put?: never;
        post?: never;
        /**
         * Delete a schedule: no tick fires after this
         * @description Deletes a schedule: no tick fires after this; the tasks it created stay. Another account's schedule is not found.
         */
        delete: operations["deleteSchedule"];
        options?: never;
        head?: never;
        /**
         * Change a schedule, pause it ({ paused: true }) or resume it
         * @description Changes any of a schedule's fields. `cron` replaces `every` and the reverse. A change of cron, every or timezone, and a resumption, start the schedule afresh from now: ticks missed before are not caught up. Another account's schedule is not found.
         */
        patch: operations["updateSchedule"];
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow every task and schedule event of the caller's account live (Server-Sent Events)
         * @description Every task and schedule event of the caller's account as Server-Sent Events: tasks created, started, their proposed actions and delegations, completions and failures; schedules created, changed, paused, resumed, deleted, each tick fired (with its task) or skipped (with why); in the order the log stored them, each with its stream sequence as `id`. Without Last-Event-ID it starts with the next event appended; with it, it first sends what came after that event, then goes on live, nothing lost and nothing repeated. The stream stays open until the client leaves; the server ends it when it stops or when the client falls more than 1,000 events behind: reconnect with Last-Event-ID. Another account's events never appear. EventSource cannot send the Authorization header: use a server-side proxy or a fetch-based client (docs/tasks.md). It counts against SSE_MAX_STREAMS_PER_ACCOUNT like GET /v1/tasks/{taskId}/events (429 `rate_limited` past it).
         */
        get: operations["streamAccountEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/tasks/{taskId}/actions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A task's proposed write actions, in the order its run proposed them, with what became of each
         * @description The write actions a task's run proposed (a post to publish, a budget to change), in order, each with its status: draft, pending_approval, approved, rejected, executed, execution_failed or not_executed.
         */
        get: operations["listTaskActions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The account's actions awaiting approval, newest first
         * @description The account's actions awaiting a human decision, newest first, a page at a time.
         */
        get: operations["listPendingApprovals"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/actions/{actionId}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve an action awaiting approval: a configured connector carries it out, otherwise it stays approved for your own integration
         * @description Approves an action awaiting approval. A connector configured for its platform carries it out (executed or execution_failed follow); otherwise it stays approved for your own integration to carry out. Any other status is a 409.
         */
        post: operations["approveAction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/actions/{actionId}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject an action awaiting approval: nothing is changed
         * @description Rejects an action awaiting approval, with an optional reason: nothing is changed on the platform. Any other status is a 409.
         */
        post: operations["rejectAction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Describe the API key used for this request
         * @description The API key that authenticated this request: its id, prefix, name, account, creation, expiry and last use. Never the key itself.
         */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One month's spend against the account's budget, by agent and by day
         * @description What the account's tasks billed to one UTC month (this one by default, or `month=YYYY-MM`) cost against its monthly budget: spent (tasks that ended), reserved (tasks still pending or running) and what remains before POST /v1/tasks answers 402, split by agent and by day for a chart. A task is billed to the month it was created in and counts when it ends, on the day it ended. This month's totals are those the budget check uses; the split follows the projector and may trail them by a moment. Past months are shown against the current budget.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the caller's webhooks, newest first
         * @description The caller's webhooks, newest first, without their secrets.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Register a webhook: task events are POSTed to its URL, signed with the secret returned once here
         * @description Registers an HTTPS URL (or HTTP to a public address) to receive the account's task events as signed POSTs (Standard Webhooks), at least once, in order per task, retried for 24 h. The signing secret is answered once, here.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{webhookId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a webhook: no delivery is attempted after this, retries included
         * @description Deletes a webhook: no delivery is attempted after this, retries included.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{webhookId}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Give a webhook a new signing secret, returned once here; for 24 h deliveries are signed with the old one as well
         * @description Gives the webhook a new signing secret, answered once, here. For the next 24 h every delivery carries two signatures in webhook-signature, one per secret, so a receiver holding either verifies it; then only the new one. Rotating again within the 24 h ends the older secret at once. 404 for an unknown or another account's webhook.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{webhookId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A webhook's last delivery attempts, newest first
         * @description A webhook's latest delivery attempts, newest first: the event, the task, the attempt number, the receiver's status code or the error, and whether it will be retried.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** AccountEventStreamItem */
        AccountEventStreamItem: {
            /** @description The stream sequence of the event; send the last one received as Last-Event-ID to resume after it */
            id: string;
            /**
             * @description The event type, the same as `type` in `data`
             * @enum {unknown}
             */
            event: "TaskCreated" | "TaskStarted" | "TaskActionProposed" | "TaskDelegated" | "TaskCancellationRequested" | "TaskCompleted" | "TaskFailed" | "ScheduleCreated" | "ScheduleChanged" | "SchedulePaused" | "ScheduleResumed" | "ScheduleDeleted" | "ScheduleFired" | "ScheduleTickSkipped";
            /** @description The event envelope as one line of JSON */
            data: string;
        };
        /** Action */
        Action: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            taskId: string;
            /** @description Where the change would happen: linkedin, google-ads, mailchimp, website... */
            platform: string;
            /** @description What kind of change, in a few words: publish post, raise daily budget... */
            action: string;
            /** @description One sentence a human can approve or reject */
            summary: string;
            content: string | null;
            /**
             * @description draft: kept as a draft (draft-only session); pending_approval: awaits a decision; not_executed: autonomous, but no connector was reachable; approved: approved, and left to the caller's own integration unless a connector carries it out; rejected; executed: a connector made the change; execution_failed: the connector refused or failed (see note)
             * @enum {unknown}
             */
            status: "draft" | "pending_approval" | "not_executed" | "executed" | "approved" | "rejected" | "execution_failed";
            note: string | null;
            reason: string | null;
            /** Format: date-time */
            proposedAt: string;
            decidedAt: string | null;
        };
        /** ActionResponse */
        ActionResponse: {
            action: components["schemas"]["Action"];
        };
        /** Agent */
        Agent: {
            /**
             * @description One of the ten agent types
             * @enum {unknown}
             */
            type: "growth-marketer" | "organic-social" | "paid-media" | "seo" | "email-marketing" | "creative" | "web-developer" | "cro" | "influencer-marketing" | "demand-gen";
            name: string;
            description: string;
            /** @description True only for growth-marketer, which can delegate to all specialists */
            isSupervisor: boolean;
            subspecialties: {
                id: string;
                name: string;
                description: string;
            }[];
        };
        /** ApiKeyInfo */
        ApiKeyInfo: {
            /** Format: uuid */
            id: string;
            name: string;
            keyPrefix: string;
            /** Format: date-time */
            createdAt: string;
            lastUsedAt?: string | null;
            expiresAt?: string | null;
        };
        /** BatchTaskCreated */
        BatchTaskCreated: {
            /** @enum {number} */
            status: 201;
            task: components["schemas"]["Task"];
        };
        /** BatchTaskRefused */
        BatchTaskRefused: {
            /**
             * @description 400: this body is invalid (error names tasks[i].field); 402: budget spent; 404: session not found; 409: an identical brief is pending (existingTaskId names it, also when it is an earlier body of this batch); 429: over the tasks.create rate limit (retry this body later); 503: NATS out of reach or too slow (with Idempotency-Key, a retry of the batch answers it 201 if it was stored after all); 500: a bug
             * @enum {unknown}
             */
            status: 400 | 402 | 404 | 409 | 429 | 500 | 503;
            /** @description What went wrong, for people; a validation error names the field first (`tasks[3].instruction: …`) */
            error: string;
            /**
             * @description The code a POST /v1/tasks of this body alone would have answered
             * @enum {unknown}
             */
            code: "invalid_request" | "malformed_request" | "budget_exhausted" | "not_found" | "identical_task_pending" | "identical_task_being_created" | "task_already_ended" | "action_not_pending" | "webhook_limit_reached" | "schedule_limit_reached" | "idempotency_key_in_flight" | "conflict" | "rate_limited" | "internal_error" | "unavailable" | "shutting_down" | "not_ready" | "webhooks_disabled";
            /**
             * Format: uuid
             * @description With identical_task_pending: the pending task
             */
            existingTaskId?: string;
            /** @description With 429: seconds until one more task would be admitted */
            retryAfter?: number;
        };
        /** CreatedWebhookResponse */
        CreatedWebhookResponse: {
            webhook: components["schemas"]["Webhook"];
            /** @description The Standard Webhooks signing secret (`whsec_` + base64 key). Shown only in this response: keep it to verify `webhook-signature` */
            secret: string;
        };
        /** CreateScheduleBody */
        CreateScheduleBody: {
            /** Format: uuid */
            sessionId: string;
            /**
             * @default growth-marketer
             * @enum {unknown}
             */
            agentType?: "growth-marketer" | "organic-social" | "paid-media" | "seo" | "email-marketing" | "creative" | "web-developer" | "cro" | "influencer-marketing" | "demand-gen";
            /** @description The brief of each task the schedule creates */
            instruction: string;
            title?: string | null;
            /**
             * @default normal
             * @enum {unknown}
             */
            priority?: "low" | "normal" | "high";
            /** @description A cron expression of 5 fields (minute hour day month weekday) or 6 (seconds first), read in `timezone`. Exactly one of cron and every. */
            cron?: string;
            /** @description An interval of at least 1s: 90s, 15m, 1h, 1d. Ticks fall on multiples of it since 1970-01-01T00:00Z. Exactly one of cron and every. */
            every?: string;
            /**
             * @description An IANA time zone name the cron expression is read in, e.g. Europe/Berlin
             * @default UTC
             */
            timezone?: string;
            /**
             * @description skip (the default): a tick creates no task while the schedule's previous one is pending or running, and is recorded as skipped; allow: every tick creates a task
             * @enum {unknown}
             */
            overlap?: "skip" | "allow";
            /** @description How late a tick may still fire after a time when no scheduler ran (default 1m); older ticks are recorded as skipped (outside_catchup_window) */
            catchupWindow?: string;
            /** @description A paused schedule fires nothing; resuming does not catch up the ticks missed meanwhile */
            paused?: boolean;
        };
        /** CreateSessionBody */
        CreateSessionBody: {
            /** @description Not blank */
            name: string;
            companyName?: string;
            /**
             * Format: uri
             * @description An http:// or https:// URL
             */
            companyUrl?: string;
            industry?: string;
            targetAudience?: string;
            /**
             * @description What agents may do on live platforms: `draft-only` keeps write actions as drafts, `approval-required` (the default) records them as pending approvals, `autonomous` lets connected platforms be changed
             * @enum {unknown}
             */
            autonomy?: "draft-only" | "approval-required" | "autonomous";
        };
        /** CreateTaskBatchBody */
        CreateTaskBatchBody: {
            /** @description 1 to 100 bodies of POST /v1/tasks, each created (or refused) on its own, in order */
            tasks: components["schemas"]["CreateTaskBody"][];
        };
        /** CreateTaskBatchResponse */
        CreateTaskBatchResponse: {
            /** @description One per body, in the order sent */
            results: (components["schemas"]["BatchTaskCreated"] | components["schemas"]["BatchTaskRefused"])[];
        };
        /** CreateTaskBody */
        CreateTaskBody: {
            /** Format: uuid */
            sessionId: string;
            /**
             * @description growth-marketer is the supervisor and delegates to specialists
             * @default growth-marketer
             * @enum {unknown}
             */
            agentType?: "growth-marketer" | "organic-social" | "paid-media" | "seo" | "email-marketing" | "creative" | "web-developer" | "cro" | "influencer-marketing" | "demand-gen";
            /** @description Plain English; not blank */
            instruction: string;
            title?: string;
            /**
             * @description Waiting high tasks start before normal ones, normal before low
             * @default normal
             * @enum {unknown}
             */
            priority?: "low" | "normal" | "high";
            /**
             * @description Hold the response until the task ends or this many seconds pass
             * @default 0
             */
            waitSeconds?: number;
        };
        /** CreateWebhookBody */
        CreateWebhookBody: {
            /** @description An https:// URL, or http:// to a public address; loopback and private addresses are refused unless the server allows them (WEBHOOKS_ALLOW_PRIVATE_URLS) */
            url: string;
            /** @description Default: all four task events */
            events?: ("task.created" | "task.started" | "task.completed" | "task.failed" | "action.pending_approval" | "action.decided" | "schedule.created" | "schedule.changed" | "schedule.paused" | "schedule.resumed" | "schedule.deleted" | "schedule.fired" | "schedule.tick_skipped")[];
        };
        /** DecisionBody */
        DecisionBody: {
            /** @description Recorded with the decision */
            reason?: string;
        };
        /** Delivery */
        Delivery: {
            /** @description The `webhook-id` header, the same on every attempt of one delivery (the task event id) */
            webhookMessageId: string;
            /**
             * @description An event a webhook receives: task.* for a task's life, action.pending_approval when a proposed action awaits a decision, action.decided when it is approved or rejected
             * @enum {unknown}
             */
            event: "task.created" | "task.started" | "task.completed" | "task.failed" | "action.pending_approval" | "action.decided" | "schedule.created" | "schedule.changed" | "schedule.paused" | "schedule.resumed" | "schedule.deleted" | "schedule.fired" | "schedule.tick_skipped";
            /** Format: uuid */
            taskId: string;
            /** @description 1 for the first attempt, then each retry */
            attempt: number;
            statusCode: number | null;
            error: string | null;
            /** @description Whether another attempt is scheduled */
            willRetry: boolean;
            /** Format: date-time */
            attemptedAt: string;
            pausedUntil: string | null;
        };
        /** Error400 */
        Error400: {
            /** @description What went wrong, for people; a validation error names the field first (`body.name: …`) */
            error: string;
            /**
             * @description Stable, for programs: `invalid_request`: a field is missing, unknown or invalid: `error` names it; `malformed_request`: the URL, the JSON or the HTTP itself could not be read
             * @enum {string}
             */
            code: "invalid_request" | "malformed_request";
        };
        /** Error401 */
        Error401: {
            /** @description What went wrong, for people; a validation error names the field first (`body.name: …`) */
            error: string;
            /**
             * @description Stable, for programs: `unauthenticated`: missing, invalid, revoked or expired API key
             * @enum {string}
             */
            code: "unauthenticated";
        };
        /** Error402 */
        Error402: {
            /** @description What went wrong, for people; a validation error names the field first (`body.name: …`) */
            error: string;
            /**
             * @description Stable, for programs: `budget_exhausted`: the account's monthly budget is spent or reserved
             * @enum {string}
             */
            code: "budget_exhausted";
        };
        /** Error404 */
        Error404: {
            /** @description What went wrong, for people; a validation error names the field first (`body.name: …`) */
            error: string;
            /**
             * @description Stable, for programs: `not_found`: no such resource, or one of another account
             * @enum {string}
             */
            code: "not_found";
        };
        /** Error409 */
        Error409: {
            /** @description What went wrong, for people; a validation error names the field first (`body.name: …`) */
            error: string;
            /**
             * @description Stable, for programs: `identical_task_pending`: an identical brief is pending in this session; `existingTaskId` names its task; `identical_task_being_created`: an identical brief is being created at this moment; retry shortly; `task_already_ended`: the task has already ended; `action_not_pending`: the action is not awaiting approval; `webhook_limit_reached`: the account has as many webhooks as it may; `schedule_limit_reached`: the account has as many schedules as it may (SCHEDULES_PER_ACCOUNT, paused ones count); `idempotency_key_in_flight`: a request with the same Idempotency-Key is still being answered; `conflict`: a concurrent change won
             * @enum {string}
             */
            code: "identical_task_pending" | "identical_task_being_created" | "task_already_ended" | "action_not_pending" | "webhook_limit_reached" | "schedule_limit_reached" | "idempotency_key_in_flight" | "conflict";
            /**
             * Format: uuid
             * @description With `identical_task_pending`: the pending task
             */
            existingTaskId?: string;
        };
        /** Error422 */
        Error422: {
            /** @description What went wrong, for people; a validation error names the field first (`body.name: …`) */
            error: string;
            /**
             * @description Stable, for programs: `idempotency_key_reused`: the Idempotency-Key was used with another request body
             * @enum {string}
             */
            code: "idempotency_key_reused";
        };
        /** Error429 */
        Error429: {
            /** @description What went wrong, for people; a validation error names the field first (`body.name: …`) */
            error: string;
            /**
             * @description Stable, for programs: `rate_limited`: over the rate limit of this group; see Retry-After
             * @enum {string}
             */
            code: "rate_limited";
        };
        /** Error503 */
        Error503: {
            /** @description What went wrong, for people; a validation error names the field first (`body.name: …`) */
            error: string;
            /**
             * @description Stable, for programs: `unavailable`: NATS or MongoDB is out of reach for now; see Retry-After; `shutting_down`: this process is stopping; another one will answer; `not_ready`: the process is not ready (see `error`); `webhooks_disabled`: webhooks are not enabled on this server
             * @enum {string}
             */
            code: "unavailable" | "shutting_down" | "not_ready" | "webhooks_disabled";
        };
        /** IdempotencyInFlightError */
        IdempotencyInFlightError: {
            /** @description What went wrong, for people; a validation error names the field first (`body.name: …`) */
            error: string;
            /**
             * @description Stable, for programs: `idempotency_key_in_flight`: a request with the same Idempotency-Key is still being answered
             * @enum {string}
             */
            code: "idempotency_key_in_flight";
            /**
             * Format: uuid
             * @description With `identical_task_pending`: the pending task
             */
            existingTaskId?: string;
        };
        /** ListAgentsResponse */
        ListAgentsResponse: {
            agents: components["schemas"]["Agent"][];
        };
        /** ListDeliveriesResponse */
        ListDeliveriesResponse: {
            /** @description The last 100 attempts, newest first */
            deliveries: components["schemas"]["Delivery"][];
        };
        /** ListSchedulesResponse */
        ListSchedulesResponse: {
            schedules: components["schemas"]["Schedule"][];
            pagination: components["schemas"]["Pagination"];
        };
        /** ListSessionsResponse */
        ListSessionsResponse: {
            sessions: components["schemas"]["Session"][];
            pagination: components["schemas"]["Pagination"];
        };
        /** ListTasksResponse */
        ListTasksResponse: {
            tasks: components["schemas"]["Task"][];
            pagination: components["schemas"]["TaskPagination"];
        };
        /** ListWebhooksResponse */
        ListWebhooksResponse: {
            webhooks: components["schemas"]["Webhook"][];
        };
        /** MeResponse */
        MeResponse: {
            key: components["schemas"]["ApiKeyInfo"];
        };
        /** Pagination */
        Pagination: {
            page: number;
            limit: number;
            total: number;
            totalPages: number;
        };
        /** PendingApprovalsResponse */
        PendingApprovalsResponse: {
            actions: components["schemas"]["Action"][];
            pagination: components["schemas"]["Pagination"];
        };
        /** RotatedSecretResponse */
        RotatedSecretResponse: {
            webhook: components["schemas"]["Webhook"];
            /** @description The new signing secret (`whsec_` + base64 key). Shown only in this response: deliveries are signed with it from now on */
            secret: string;
            /**
             * Format: date-time
             * @description Until then (24 h) every delivery carries a second signature, made with the secret this one replaces: switch receivers over before it
             */
            previousSecretValidUntil: string;
        };
        /** Schedule */
        Schedule: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            sessionId: string;
            /**
             * @description One of the ten agent types
             * @enum {unknown}
             */
            agentType: "growth-marketer" | "organic-social" | "paid-media" | "seo" | "email-marketing" | "creative" | "web-developer" | "cro" | "influencer-marketing" | "demand-gen";
            instruction: string;
            title: string | null;
            /** @enum {unknown} */
            priority: "low" | "normal" | "high";
            cron: string | null;
            every: string | null;
            timezone: string;
            /**
             * @description skip (the default): a tick creates no task while the schedule's previous one is pending or running, and is recorded as skipped; allow: every tick creates a task
             * @enum {unknown}
             */
            overlap: "skip" | "allow";
            catchupWindow: string;
            paused: boolean;
            /** Format: date-time */
            createdAt: string;
            /** @description The next five fire times; [] while paused */
            nextRuns: string[];
            /** @description The latest ticks, newest first (up to 20): each with its task, or skipped with why */
            recentFirings: ({
                /** Format: date-time */
                scheduledFor: string;
                /** Format: uuid */
                taskId: string;
            } | {
                /** Format: date-time */
                scheduledFor: string;
                /** @enum {unknown} */
                skipped: "overlap" | "budget_exhausted" | "rate_limited" | "session_missing" | "outside_catchup_window";
                /** @description For outside_catchup_window: how many ticks were missed */
                missedTicks?: number;
            })[];
        };
        /** ScheduleChangedEvent */
        ScheduleChangedEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "ScheduleChanged";
            /** @description Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read. */
            version: number;
            /** Format: date-time */
            occurredAt: string;
            /** Format: uuid */
            accountId: string;
            /** Format: uuid */
            aggregateId: string;
            /** @description The whole schedule after the change. */
            data: {
                /** Format: uuid */
                sessionId: string;
                /** @enum {unknown} */
                agentType: "growth-marketer" | "organic-social" | "paid-media" | "seo" | "email-marketing" | "creative" | "web-developer" | "cro" | "influencer-marketing" | "demand-gen";
                instruction: string;
                title: string | null;
                /** @enum {unknown} */
                priority: "low" | "normal" | "high";
                cron: string | null;
                every: string | null;
                /** @description The IANA time zone `cron` is read in. */
                timezone: string;
                /**
                 * @description skip: no new task while the schedule's previous one is pending or running; allow: a task each tick.
                 * @enum {unknown}
                 */
                overlap: "skip" | "allow";
                /** @description How late a tick may still fire, after a time when no scheduler ran; older ticks are recorded as skipped. */
                catchupWindow: string;
                /**
                 * Format: date-time
                 * @description Ticks at or before this instant are not due: the creation, the change of timing or the resumption.
                 */
                activeFrom: string;
            };
            metadata: {
                /** @description The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included). */
                correlationId: string;
                /** @description Reserved for the event that caused this one; null on every event today. */
                causationId: string | null;
                /** @description The API key id that issued the request; null for operator commands and worker events. */
                keyId: string | null;
            };
        };
        /** ScheduleCreatedEvent */
        ScheduleCreatedEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "ScheduleCreated";
            /** @description Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read. */
            version: number;
            /** Format: date-time */
            occurredAt: string;
            /** Format: uuid */
            accountId: string;
            /** Format: uuid */
            aggregateId: string;
            data: {
                /** Format: uuid */
                sessionId: string;
                /** @enum {unknown} */
                agentType: "growth-marketer" | "organic-social" | "paid-media" | "seo" | "email-marketing" | "creative" | "web-developer" | "cro" | "influencer-marketing" | "demand-gen";
                instruction: string;
                title: string | null;
                /** @enum {unknown} */
                priority: "low" | "normal" | "high";
                cron: string | null;
                every: string | null;
                /** @description The IANA time zone `cron` is read in. */
                timezone: string;
                /**
                 * @description skip: no new task while the schedule's previous one is pending or running; allow: a task each tick.
                 * @enum {unknown}
                 */
                overlap: "skip" | "allow";
                /** @description How late a tick may still fire, after a time when no scheduler ran; older ticks are recorded as skipped. */
                catchupWindow: string;
                /**
                 * Format: date-time
                 * @description Ticks at or before this instant are not due: the creation, the change of timing or the resumption.
                 */
                activeFrom: string;
                paused: boolean;
            };
            metadata: {
                /** @description The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included). */
                correlationId: string;
                /** @description Reserved for the event that caused this one; null on every event today. */
                causationId: string | null;
                /** @description The API key id that issued the request; null for operator commands and worker events. */
                keyId: string | null;
            };
        };
        /** ScheduleDeletedEvent */
        ScheduleDeletedEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "ScheduleDeleted";
            /** @description Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read. */
            version: number;
            /** Format: date-time */
            occurredAt: string;
            /** Format: uuid */
            accountId: string;
            /** Format: uuid */
            aggregateId: string;
            data: Record<string, never>;
            metadata: {
                /** @description The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included). */
                correlationId: string;
                /** @description Reserved for the event that caused this one; null on every event today. */
                causationId: string | null;
                /** @description The API key id that issued the request; null for operator commands and worker events. */
                keyId: string | null;
            };
        };
        /** ScheduleFiredEvent */
        ScheduleFiredEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "ScheduleFired";
            /** @description Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read. */
            version: number;
            /** Format: date-time */
            occurredAt: string;
            /** Format: uuid */
            accountId: string;
            /** Format: uuid */
            aggregateId: string;
            data: {
                /**
                 * Format: date-time
                 * @description The tick: when the task was due.
                 */
                scheduledFor: string;
                /**
                 * Format: uuid
                 * @description The task the tick created (its TaskCreated carries scheduleId and scheduledFor), stored with this event, atomically.
                 */
                taskId: string;
            };
            metadata: {
                /** @description The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included). */
                correlationId: string;
                /** @description Reserved for the event that caused this one; null on every event today. */
                causationId: string | null;
                /** @description The API key id that issued the request; null for operator commands and worker events. */
                keyId: string | null;
            };
        };
        /** SchedulePausedEvent */
        SchedulePausedEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "SchedulePaused";
            /** @description Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read. */
            version: number;
            /** Format: date-time */
            occurredAt: string;
            /** Format: uuid */
            accountId: string;
            /** Format: uuid */
            aggregateId: string;
            data: Record<string, never>;
            metadata: {
                /** @description The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included). */
                correlationId: string;
                /** @description Reserved for the event that caused this one; null on every event today. */
                causationId: string | null;
                /** @description The API key id that issued the request; null for operator commands and worker events. */
                keyId: string | null;
            };
        };
        /** ScheduleResponse */
        ScheduleResponse: {
            schedule: components["schemas"]["Schedule"];
        };
        /** ScheduleResumedEvent */
        ScheduleResumedEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "ScheduleResumed";
            /** @description Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read. */
            version: number;
            /** Format: date-time */
            occurredAt: string;
            /** Format: uuid */
            accountId: string;
            /** Format: uuid */
            aggregateId: string;
            data: {
                /**
                 * Format: date-time
                 * @description Ticks at or before this instant are not due: the creation, the change of timing or the resumption.
                 */
                activeFrom: string;
            };
            metadata: {
                /** @description The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included). */
                correlationId: string;
                /** @description Reserved for the event that caused this one; null on every event today. */
                causationId: string | null;
                /** @description The API key id that issued the request; null for operator commands and worker events. */
                keyId: string | null;
            };
        };
        /** ScheduleTickSkippedEvent */
        ScheduleTickSkippedEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "ScheduleTickSkipped";
            /** @description Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read. */
            version: number;
            /** Format: date-time */
            occurredAt: string;
            /** Format: uuid */
            accountId: string;
            /** Format: uuid */
            aggregateId: string;
            data: {
                /**
                 * Format: date-time
                 * @description The tick skipped; for outside_catchup_window, the latest of the ticks missed.
                 */
                scheduledFor: string;
                /**
                 * @description overlap: the schedule's previous task was still pending or running (overlap skip). budget_exhausted: the account's monthly budget was spent. rate_limited: the account's scheduled ticks went past their rate. session_missing: the session is no longer there. outside_catchup_window: the tick was missed (no scheduler ran) for longer than catchupWindow.
                 * @enum {unknown}
                 */
                reason: "overlap" | "budget_exhausted" | "rate_limited" | "session_missing" | "outside_catchup_window";
                /** @description For outside_catchup_window: how many ticks this one record covers. */
                missedTicks?: number;
            };
            metadata: {
                /** @description The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included). */
                correlationId: string;
                /** @description Reserved for the event that caused this one; null on every event today. */
                causationId: string | null;
                /** @description The API key id that issued the request; null for operator commands and worker events. */
                keyId: string | null;
            };
        };
        /** Session */
        Session: {
            /** Format: uuid */
            id: string;
            name: string;
            companyName?: string | null;
            companyUrl?: string | null;
            industry: string | null;
            targetAudience: string | null;
            /**
             * @description What agents may do on live platforms: `draft-only` keeps write actions as drafts, `approval-required` (the default) records them as pending approvals, `autonomous` lets connected platforms be changed
             * @enum {unknown}
             */
            autonomy: "draft-only" | "approval-required" | "autonomous";
            /** @description Durable facts about the company that runs in this session have learned; later runs receive them */
            factsLearned: number;
            /** Format: date-time */
            createdAt: string;
        };
        /** SessionResponse */
        SessionResponse: {
            session: components["schemas"]["Session"];
        };
        /** Task */
        Task: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            sessionId: string;
            /**
             * @description One of the ten agent types
             * @enum {unknown}
             */
            agentType: "growth-marketer" | "organic-social" | "paid-media" | "seo" | "email-marketing" | "creative" | "web-developer" | "cro" | "influencer-marketing" | "demand-gen";
            /**
             * @description instruction: created from a brief; delegated: a part of a brief the supervisor gave a specialist
             * @enum {unknown}
             */
            taskType: "instruction" | "delegated";
            /** @enum {unknown} */
            status: "pending" | "running" | "completed" | "failed";
            /**
             * @description As given at creation
             * @enum {unknown}
             */
            priority?: "low" | "normal" | "high";
            title?: string | null;
            parentTaskId?: string | null;
            rerunOf?: string | null;
            /** @description The re-runs of this task, oldest first; [] if none */
            reruns?: string[];
            scheduleId?: string | null;
            scheduledFor?: string | null;
            instruction?: string | null;
            result?: string | null;
            error?: string | null;
            createdAt?: string | null;
            startedAt?: string | null;
            completedAt?: string | null;
            /** @description The provider, model and tokens of the run, once it ended; null before, and when no model answered */
            usage?: {
                /** @description Agent provider (LLM_PROVIDER): offline, openai or anthropic. */
                provider: string;
                /** @description Model (`mats-offline-1` for the offline provider, else the model the agent ran on). */
                model: string;
                /** @description Summed over the run's model calls as the provider reports them (Anthropic cache reads and writes included); characters / 4 when none are reported. */
                inputTokens: number;
                outputTokens: number;
            } | null;
            /** @description What the run cost, once it ended (0 before); USD, exact to the micro-dollar */
            costUsd?: number;
        };
        /** TaskActionProposedEvent */
        TaskActionProposedEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "TaskActionProposed";
            /** @description Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read. */
            version: number;
            /** Format: date-time */
            occurredAt: string;
            /** Format: uuid */
            accountId: string;
            /** Format: uuid */
            aggregateId: string;
            data: {
                /** @description Where it would happen (`linkedin`, `google-ads`, `mailchimp`, `website`...). */
                platform: string;
                /** @description What kind of change, in a few words (`publish post`, `raise daily budget`...). */
                action: string;
                /** @description One sentence a person can approve or reject. */
                summary: string;
                /** @description The draft itself (post text, email body, new budget), when there is one. */
                content: string | null;
                /** Format: uuid */
                actionId: string;
                /**
                 * @description What the session's autonomy made of the proposal. draft: the session is draft-only; kept as a draft, nobody is asked. pending_approval: it awaits a person's approval before anything changes. not_executed: the session is autonomous, but no connector for the platform is reachable from this deployment, so nothing was changed. executed: an autonomous session's connector made the change.
                 * @enum {unknown}
                 */
                status: "draft" | "pending_approval" | "not_executed" | "executed";
                /** @description Why it was not executed, or the platform's reference when it was; else null. */
                note: string | null;
            };
            metadata: {
                /** @description The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included). */
                correlationId: string;
                /** @description Reserved for the event that caused this one; null on every event today. */
                causationId: string | null;
                /** @description The API key id that issued the request; null for operator commands and worker events. */
                keyId: string | null;
            };
        };
        /** TaskActionsResponse */
        TaskActionsResponse: {
            actions: components["schemas"]["Action"][];
        };
        /** TaskCancellationRequestedEvent */
        TaskCancellationRequestedEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "TaskCancellationRequested";
            /** @description Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read. */
            version: number;
            /** Format: date-time */
            occurredAt: string;
            /** Format: uuid */
            accountId: string;
            /** Format: uuid */
            aggregateId: string;
            data: {
                /** @description The id of the API key that asked; null for an operator. */
                requestedBy: string | null;
            };
            metadata: {
                /** @description The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included). */
                correlationId: string;
                /** @description Reserved for the event that caused this one; null on every event today. */
                causationId: string | null;
                /** @description The API key id that issued the request; null for operator commands and worker events. */
                keyId: string | null;
            };
        };
        /** TaskCompletedEvent */
        TaskCompletedEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "TaskCompleted";
            /** @description Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read. */
            version: number;
            /** Format: date-time */
            occurredAt: string;
            /** Format: uuid */
            accountId: string;
            /** Format: uuid */
            aggregateId: string;
            data: {
                /** @description The deliverable, Markdown. */
                result: string;
                usage: {
                    /** @description Agent provider (LLM_PROVIDER): offline, openai or anthropic. */
                    provider: string;
                    /** @description Model (`mats-offline-1` for the offline provider, else the model the agent ran on). */
                    model: string;
                    /** @description Summed over the run's model calls as the provider reports them (Anthropic cache reads and writes included); characters / 4 when none are reported. */
                    inputTokens: number;
                    outputTokens: number;
                };
                /** @description An amount of money in micro-USD (1 USD = 1 000 000). */
                costMicros: number;
                /** @description Durable facts about the company the run saved (remember_fact); [] if none. The worker then appends the new ones to the session as SessionFactLearned. Missing on tasks completed before it existed: read it as []. */
                learnedFacts?: string[];
                /** @description The UTC month of the task's creation, which it is billed to. */
                billingMonth: string;
                /** @description An amount of money in micro-USD (1 USD = 1 000 000). */
                reservedMicros: number;
                /**
                 * @description The task's agent, as in TaskCreated. Missing on tasks that ended before it existed.
                 * @enum {unknown}
                 */
                agentType?: "growth-marketer" | "organic-social" | "paid-media" | "seo" | "email-marketing" | "creative" | "web-developer" | "cro" | "influencer-marketing" | "demand-gen";
            };
            metadata: {
                /** @description The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included). */
                correlationId: string;
                /** @description Reserved for the event that caused this one; null on every event today. */
                causationId: string | null;
                /** @description The API key id that issued the request; null for operator commands and worker events. */
                keyId: string | null;
            };
        };
        /** TaskCounts */
        TaskCounts: {
            pending: number;
            running: number;
            completed: number;
            failed: number;
            /** @description All of them */
            total: number;
        };
        /** TaskCountsResponse */
        TaskCountsResponse: {
            counts: components["schemas"]["TaskCounts"];
        };
        /** TaskCreatedEvent */
        TaskCreatedEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "TaskCreated";
            /** @description Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read. */
            version: number;
            /** Format: date-time */
            occurredAt: string;
            /** Format: uuid */
            accountId: string;
            /** Format: uuid */
            aggregateId: string;
            data: {
                /** Format: uuid */
                sessionId: string;
                /** @enum {unknown} */
                agentType: "growth-marketer" | "organic-social" | "paid-media" | "seo" | "email-marketing" | "creative" | "web-developer" | "cro" | "influencer-marketing" | "demand-gen";
                /**
                 * @description instruction = from a caller's brief; delegated = a part of a brief the supervisor handed to a specialist (created by the worker, parentTaskId set).
                 * @enum {unknown}
                 */
                taskType: "instruction" | "delegated";
                instruction: string;
                title: string | null;
                /** @enum {unknown} */
                priority: "low" | "normal" | "high";
                /** @description SHA-256 of session, agent and normalized instruction; identical briefs share it. A schedule's task has its tick's (schedule and scheduledFor). */
                fingerprint: string;
                /** @description For a delegated task, the supervisor task it is part of; else null. */
                parentTaskId: string | null;
                /** @description Internal: the revision of the task's identical-task entry (KV bucket mats_pending_tasks) its creation took, so that its claim or cancellation removes exactly that entry without reading it first. Absent on a schedule's task: it takes no entry (no other task has its tick's fingerprint). */
                identityRevision?: number;
                /**
                 * Format: uuid
                 * @description On a re-run only: the task it repeats, whose TaskRerunCreated (subject mats.reruns.<accountId>.<that task>.TaskRerunCreated) was stored with this event, atomically.
                 */
                rerunOf?: string;
                /**
                 * Format: uuid
                 * @description On a schedule's task only: the schedule whose tick created it; its ScheduleFired (subject mats.schedule.<accountId>.<scheduleId>.ScheduleFired) was stored with this event, atomically.
                 */
                scheduleId?: string;
                /**
                 * Format: date-time
                 * @description On a schedule's task only: the tick it was created for.
                 */
                scheduledFor?: string;
                /** @description The UTC month of the task's creation, which it is billed to. */
                billingMonth: string;
                /** @description An amount of money in micro-USD (1 USD = 1 000 000). */
                reservedMicros: number;
            };
            metadata: {
                /** @description The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included). */
                correlationId: string;
                /** @description Reserved for the event that caused this one; null on every event today. */
                causationId: string | null;
                /** @description The API key id that issued the request; null for operator commands and worker events. */
                keyId: string | null;
            };
        };
        /** TaskDelegatedEvent */
        TaskDelegatedEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "TaskDelegated";
            /** @description Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read. */
            version: number;
            /** Format: date-time */
            occurredAt: string;
            /** Format: uuid */
            accountId: string;
            /** Format: uuid */
            aggregateId: string;
            data: {
                /**
                 * Format: uuid
                 * @description The delegated task (taskType delegated, parentTaskId this task).
                 */
                childTaskId: string;
                /**
                 * @description The specialist; any agent but the supervisor (growth-marketer).
                 * @enum {unknown}
                 */
                agentType: "growth-marketer" | "organic-social" | "paid-media" | "seo" | "email-marketing" | "creative" | "web-developer" | "cro" | "influencer-marketing" | "demand-gen";
                /** @description The brief the supervisor wrote for the specialist; also the child's instruction. */
                instruction: string;
            };
            metadata: {
                /** @description The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included). */
                correlationId: string;
                /** @description Reserved for the event that caused this one; null on every event today. */
                causationId: string | null;
                /** @description The API key id that issued the request; null for operator commands and worker events. */
                keyId: string | null;
            };
        };
        /**
         * TaskEventStreamItem
         * @example {
         *       "id": "86",
         *       "event": "TaskStarted",
         *       "data": "{\"id\":\"154259f8-3f4e-4f6c-9b1a-0c2d3e4f5a6b\",\"type\":\"TaskStarted\",\"version\":1,\"occurredAt\":\"2026-11-23T01:31:02.736Z\",\"accountId\":\"2a92cb0d-1b2c-4d3e-8f40-5a6b7c8d9e0f\",\"aggregateId\":\"308a9884-194a-4ea7-97c9-fe39f034f79b\",\"data\":{\"workerId\":\"vm:11366:bd0ed517\"},\"metadata\":{\"correlationId\":\"308a9884-194a-4ea7-97c9-fe39f034f79b\",\"causationId\":null,\"keyId\":null}}"
         *     }
         */
        TaskEventStreamItem: {
            /** @description The stream sequence of the event; send the last one received as Last-Event-ID to resume after it */
            id: string;
            /**
             * @description The event type, the same as `type` in `data`
             * @enum {unknown}
             */
            event: "TaskCreated" | "TaskStarted" | "TaskActionProposed" | "TaskDelegated" | "TaskCancellationRequested" | "TaskCompleted" | "TaskFailed";
            /** @description The event envelope as one line of JSON */
            data: string;
        };
        /** TaskFailedEvent */
        TaskFailedEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "TaskFailed";
            /** @description Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read. */
            version: number;
            /** Format: date-time */
            occurredAt: string;
            /** Format: uuid */
            accountId: string;
            /** Format: uuid */
            aggregateId: string;
            data: {
                error: string;
                /**
                 * @description agent_error: the agent could not produce a result (e.g. it kept sending malformed tool calls). provider_error: the language model could not be reached or refused, after retries, sent a reply that cannot be read, or empty replies 3 times in a row. step_limit: the run used all its steps. timeout: it used all its time. parent_ended: a delegated run whose supervising task ended first. worker_lost: its worker stopped responding and another worker failed it. worker_shutdown: its worker stopped and the grace period ran out. cancelled: the caller cancelled it (POST /v1/tasks/{taskId}/cancel), or its supervising task; the error begins with "cancelled".
                 * @enum {unknown}
                 */
                reason: "agent_error" | "provider_error" | "step_limit" | "timeout" | "parent_ended" | "worker_lost" | "worker_shutdown" | "cancelled";
                /** @description null when the run got no reply from a model (offline provider, worker_lost, every call failed). */
                usage: {
                    /** @description Agent provider (LLM_PROVIDER): offline, openai or anthropic. */
                    provider: string;
                    /** @description Model (`mats-offline-1` for the offline provider, else the model the agent ran on). */
                    model: string;
                    /** @description Summed over the run's model calls as the provider reports them (Anthropic cache reads and writes included); characters / 4 when none are reported. */
                    inputTokens: number;
                    outputTokens: number;
                } | null;
                /** @description What the run spent before it failed (a language-model run's tokens); 0 for the offline provider and worker_lost. */
                costMicros: number;
                /** @description The UTC month of the task's creation, which it is billed to. */
                billingMonth: string;
                /** @description An amount of money in micro-USD (1 USD = 1 000 000). */
                reservedMicros: number;
                /**
                 * @description The task's agent, as in TaskCreated. Missing on tasks that ended before it existed.
                 * @enum {unknown}
                 */
                agentType?: "growth-marketer" | "organic-social" | "paid-media" | "seo" | "email-marketing" | "creative" | "web-developer" | "cro" | "influencer-marketing" | "demand-gen";
            };
            metadata: {
                /** @description The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included). */
                correlationId: string;
                /** @description Reserved for the event that caused this one; null on every event today. */
                causationId: string | null;
                /** @description The API key id that issued the request; null for operator commands and worker events. */
                keyId: string | null;
            };
        };
        /** TaskPagination */
        TaskPagination: {
            page: number;
            limit: number;
            /** @description How many tasks match: exact when `totalExact`, else at least this many (1000; a filter with no stored count is counted that far and no further) */
            total: number;
            totalPages: number;
            /** @description False when `total` is a lower bound */
            totalExact: boolean;
            nextCursor: string | null;
        };
        /** TaskResponse */
        TaskResponse: {
            task: components["schemas"]["Task"];
        };
        /** TaskStartedEvent */
        TaskStartedEvent: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            type: "TaskStarted";
            /** @description Schema version of `data` for this type; bumped on incompatible change. Readers upcast older versions on read. */
            version: number;
            /** Format: date-time */
            occurredAt: string;
            /** Format: uuid */
            accountId: string;
            /** Format: uuid */
            aggregateId: string;
            data: {
                /** @description The worker process that claimed the task, `<hostname>:<pid>:<random>`. */
                workerId: string;
            };
            metadata: {
                /** @description The HTTP request id (x-request-id), a fresh uuid for an operator command, or the task id for a worker's events (the supervisor's task id for the events of a delegated task run beside it, its TaskCreated included). */
                correlationId: string;
                /** @description Reserved for the event that caused this one; null on every event today. */
                causationId: string | null;
                /** @description The API key id that issued the request; null for operator commands and worker events. */
                keyId: string | null;
            };
        };
        /** UpdateScheduleBody */
        UpdateScheduleBody: {
            /**
             * @default growth-marketer
             * @enum {unknown}
             */
            agentType?: "growth-marketer" | "organic-social" | "paid-media" | "seo" | "email-marketing" | "creative" | "web-developer" | "cro" | "influencer-marketing" | "demand-gen";
            /** @description The brief of each task the schedule creates */
            instruction?: string;
            title?: string | null;
            /**
             * @default normal
             * @enum {unknown}
             */
            priority?: "low" | "normal" | "high";
            /** @description A cron expression of 5 fields (minute hour day month weekday) or 6 (seconds first), read in `timezone`. Exactly one of cron and every. */
            cron?: string;
            /** @description An interval of at least 1s: 90s, 15m, 1h, 1d. Ticks fall on multiples of it since 1970-01-01T00:00Z. Exactly one of cron and every. */
            every?: string;
            /**
             * @description An IANA time zone name the cron expression is read in, e.g. Europe/Berlin
             * @default UTC
             */
            timezone?: string;
            /**
             * @description skip (the default): a tick creates no task while the schedule's previous one is pending or running, and is recorded as skipped; allow: every tick creates a task
             * @enum {unknown}
             */
            overlap?: "skip" | "allow";
            /** @description How late a tick may still fire after a time when no scheduler ran (default 1m); older ticks are recorded as skipped (outside_catchup_window) */
            catchupWindow?: string;
            /** @description A paused schedule fires nothing; resuming does not catch up the ticks missed meanwhile */
            paused?: boolean;
        };
        /** UpdateSessionBody */
        UpdateSessionBody: {
            /**
             * @description What agents may do on live platforms: `draft-only` keeps write actions as drafts, `approval-required` (the default) records them as pending approvals, `autonomous` lets connected platforms be changed
             * @enum {unknown}
             */
            autonomy: "draft-only" | "approval-required" | "autonomous";
        };
        /** Usage */
        Usage: {
            /** @description The UTC month, `YYYY-MM`; a task is billed to the month it was created in */
            month: string;
            /** @description The account's monthly budget (its current one, also for past months); USD, exact to the micro-dollar */
            budgetUsd: number;
            /** @description What the tasks billed to the month that have ended cost; USD, exact to the micro-dollar */
            spentUsd: number;
            /** @description Held for tasks of the month still pending or running (TASK_RESERVATION_USD each); released when they end; USD, exact to the micro-dollar */
            reservedUsd: number;
            /** @description budget - spent - reserved, never below 0; at 0, POST /v1/tasks answers 402; USD, exact to the micro-dollar */
            remainingUsd: number;
            /** @description Spend of ended tasks by agent, highest first; agents without an ended task are left out */
            byAgent: {
                /**
                 * @description One of the ten agent types
                 * @enum {unknown}
                 */
                agentType: "growth-marketer" | "organic-social" | "paid-media" | "seo" | "email-marketing" | "creative" | "web-developer" | "cro" | "influencer-marketing" | "demand-gen";
                /** @description What the tasks that ended in it cost; USD, exact to the micro-dollar */
                spentUsd: number;
                /** @description How many tasks ended in it */
                tasks: number;
            }[];
            /** @description Spend of ended tasks by the UTC day they ended, every day of the month up to today (0 on quiet days), oldest first */
            byDay: {
                /**
                 * Format: date
                 * @description A UTC day, `YYYY-MM-DD`
                 */
                date: string;
                /** @description What the tasks that ended in it cost; USD, exact to the micro-dollar */
                spentUsd: number;
                /** @description How many tasks ended in it */
                tasks: number;
            }[];
        };
        /** UsageResponse */
        UsageResponse: {
            usage: components["schemas"]["Usage"];
        };
        /** Webhook */
        Webhook: {
            /** Format: uuid */
            id: string;
            /** @description Where deliveries are POSTed */
            url: string;
            events: ("task.created" | "task.started" | "task.completed" | "task.failed" | "action.pending_approval" | "action.decided" | "schedule.created" | "schedule.changed" | "schedule.paused" | "schedule.resumed" | "schedule.deleted" | "schedule.fired" | "schedule.tick_skipped")[];
            /** Format: date-time */
            createdAt: string;
            pausedUntil: string | null;
        };
        /** WebhooksUnavailableError */
        WebhooksUnavailableError: {
            /** @description What went wrong, for people; a validation error names the field first (`body.name: …`) */
            error: string;
            /**
             * @description Stable, for programs: `unavailable`: NATS or MongoDB is out of reach for now; see Retry-After; `webhooks_disabled`: webhooks are not enabled on this server
             * @enum {string}
             */
            code: "unavailable" | "webhooks_disabled";
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description IETF draft RateLimit: what remains of the group's quota now (`r`) and in how many seconds it is whole again (`t`), e.g. `"tasks.create";r=18;t=6` */
        RateLimit: string;
        /** @description IETF draft RateLimit-Policy: the group, its quota `q` and window `w` in seconds, e.g. `"tasks.create";q=20;w=60` */
        "RateLimit-Policy": string;
        /** @description Seconds to wait before retrying */
        "Retry-After": number;
        /** @description The created task: `/v1/tasks/{taskId}` */
        Location: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getOpenApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Rate limited per client address; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
        };
    };
    listAgents: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The ten agents, supervisor first */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListAgentsResponse"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    listSessions: {
        parameters: {
            query?: {
                /** @description Which page, from 1 */
                page?: number;
                /** @description How many items a page holds */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of sessions and where it is in the whole list */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListSessionsResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same body within 24 h answers the first response again, with Idempotent-Replayed: true, and creates nothing. Scoped to the account; a UUID is a good key; a structured-field string ("...") is read without its quotes. */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSessionBody"];
            };
        };
        responses: {
            /** @description The session, created */
            201: {
                headers: {
                    /** @description Present when this is the stored answer to an earlier request with the same Idempotency-Key */
                    "idempotent-replayed"?: "true";
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description A request with the same Idempotency-Key is still in flight */
            409: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyInFlightError"];
                };
            };
            /** @description The Idempotency-Key was already used with a different request body */
            422: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error422"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The session, as POST /v1/sessions answered it */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    updateSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The session, as POST /v1/sessions answered it */
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateSessionBody"];
            };
        };
        responses: {
            /** @description The session as it now stands */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    listTasks: {
        parameters: {
            query?: {
                /** @description Only the tasks of this session */
                sessionId?: string;
                /** @description Only the tasks this schedule created */
                scheduleId?: string;
                /** @description Only the tasks in this status */
                status?: "pending" | "running" | "completed" | "failed";
                /** @description Only the tasks of this agent */
                agentType?: "growth-marketer" | "organic-social" | "paid-media" | "seo" | "email-marketing" | "creative" | "web-developer" | "cro" | "influencer-marketing" | "demand-gen";
                /** @description Only the tasks of this priority */
                priority?: "low" | "normal" | "high";
                /** @description Only the tasks created at or after this instant */
                createdFrom?: string;
                /** @description Only the tasks created before this instant */
                createdTo?: string;
                /** @description Which page, from 1 */
                page?: number;
                /** @description How many items a page holds */
                limit?: number;
                /** @description The page after the one that gave this `pagination.nextCursor` (send the same filters and limit; not with `page`). It costs the same at any depth and is not shifted by tasks created meanwhile; `page` numbers skip what the pages before hold. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tasks and where it is in the whole list */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListTasksResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    createTask: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same body within 24 h answers the first response again, with Idempotent-Replayed: true, and creates nothing. Scoped to the account; a UUID is a good key; a structured-field string ("...") is read without its quotes. */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateTaskBody"];
            };
        };
        responses: {
            /** @description The task: pending, or as it ended when waitSeconds was given and it ended in time */
            201: {
                headers: {
                    /** @description Present when this is the stored answer to an earlier request with the same Idempotency-Key */
                    "idempotent-replayed"?: "true";
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    Location: components["headers"]["Location"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Monthly budget exhausted */
            402: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error402"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Conflict: an identical task is already pending, a request with the same Idempotency-Key is still in flight, (cancelling) the task has already ended, or (deciding) the action is not awaiting approval */
            409: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description The Idempotency-Key was already used with a different request body */
            422: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error422"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    countTasks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The counts by status */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskCountsResponse"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    getTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The task, as POST /v1/tasks answered it */
                taskId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The task */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    cancelTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The task, as POST /v1/tasks answered it */
                taskId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The task as it stands: failed, or still running if its worker has not answered within 3 s */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Conflict: an identical task is already pending, a request with the same Idempotency-Key is still in flight, (cancelling) the task has already ended, or (deciding) the action is not awaiting approval */
            409: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    rerunTask: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same body within 24 h answers the first response again, with Idempotent-Replayed: true, and creates nothing. Scoped to the account; a UUID is a good key; a structured-field string ("...") is read without its quotes. */
                "idempotency-key"?: string;
            };
            path: {
                /** @description The task, as POST /v1/tasks answered it */
                taskId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new task, pending */
            201: {
                headers: {
                    /** @description Present when this is the stored answer to an earlier request with the same Idempotency-Key */
                    "idempotent-replayed"?: "true";
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Monthly budget exhausted */
            402: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error402"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Conflict: an identical task is already pending, a request with the same Idempotency-Key is still in flight, (cancelling) the task has already ended, or (deciding) the action is not awaiting approval */
            409: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description The Idempotency-Key was already used with a different request body */
            422: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error422"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    createTaskBatch: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same body within 24 h answers the first response again, with Idempotent-Replayed: true, and creates nothing. Scoped to the account; a UUID is a good key; a structured-field string ("...") is read without its quotes. */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateTaskBatchBody"];
            };
        };
        responses: {
            /** @description One result per body, in the order sent */
            200: {
                headers: {
                    /** @description Present when this is the stored answer to an earlier request with the same Idempotency-Key */
                    "idempotent-replayed"?: "true";
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreateTaskBatchResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Conflict: an identical task is already pending, a request with the same Idempotency-Key is still in flight, (cancelling) the task has already ended, or (deciding) the action is not awaiting approval */
            409: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description The Idempotency-Key was already used with a different request body */
            422: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error422"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    streamTaskEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description Resume after this event: the `id` of the last event received (a stream sequence). Browsers and SSE clients send it when they reconnect */
                "last-event-id"?: number;
            };
            path: {
                /** @description The task, as POST /v1/tasks answered it */
                taskId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A `text/event-stream` (Server-Sent Events): each of the task's events, from the first (or after `Last-Event-ID`), as `id: <stream sequence>`, `event: <event type>` and `data: <the event envelope as JSON, see docs/events.md>`; the stream ends after `TaskCompleted` or `TaskFailed`. Comment lines (`: keep-alive`) keep an idle connection open. The schema describes one event, `data` by its `contentSchema` (OpenAPI 3.1 has no schema for a stream). */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": components["schemas"]["TaskEventStreamItem"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    listSchedules: {
        parameters: {
            query?: {
                /** @description Only the schedules of this session */
                sessionId?: string;
                /** @description Which page, from 1 */
                page?: number;
                /** @description How many items a page holds */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of schedules */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListSchedulesResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    createSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateScheduleBody"];
            };
        };
        responses: {
            /** @description The schedule, with its next five fire times */
            201: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Conflict: an identical task is already pending, a request with the same Idempotency-Key is still in flight, (cancelling) the task has already ended, or (deciding) the action is not awaiting approval */
            409: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    getSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The schedule, as POST /v1/schedules answered it */
                scheduleId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The schedule */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    deleteSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The schedule, as POST /v1/schedules answered it */
                scheduleId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    updateSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The schedule, as POST /v1/schedules answered it */
                scheduleId: string;
            };
            cookie?: never;
        };
        /** @description Any fields; cron replaces every and the reverse */
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateScheduleBody"];
            };
        };
        responses: {
            /** @description The schedule as it now stands */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    streamAccountEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description Resume after this event: the `id` of the last event received (a stream sequence). Browsers and SSE clients send it when they reconnect. Without it the stream starts with the next event appended */
                "last-event-id"?: number;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A `text/event-stream` (Server-Sent Events): every task and schedule event of the account, as `id: <stream sequence>`, `event: <event type>` and `data: <the event envelope as JSON, see docs/events.md>`. Comment lines (`: keep-alive`) keep an idle connection open. The schema describes one event, `data` by its `contentSchema` (OpenAPI 3.1 has no schema for a stream). */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": components["schemas"]["AccountEventStreamItem"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    listTaskActions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The task, as POST /v1/tasks answered it */
                taskId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The task's proposed actions */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskActionsResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    listPendingApprovals: {
        parameters: {
            query?: {
                /** @description Which page, from 1 */
                page?: number;
                /** @description How many items a page holds */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of actions awaiting approval */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PendingApprovalsResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    approveAction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The action, as GET /v1/tasks/{taskId}/actions or GET /v1/approvals list it */
                actionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DecisionBody"];
            };
        };
        responses: {
            /** @description The action, approved */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ActionResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Conflict: an identical task is already pending, a request with the same Idempotency-Key is still in flight, (cancelling) the task has already ended, or (deciding) the action is not awaiting approval */
            409: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    rejectAction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The action, as GET /v1/tasks/{taskId}/actions or GET /v1/approvals list it */
                actionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DecisionBody"];
            };
        };
        responses: {
            /** @description The action, rejected */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ActionResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Conflict: an identical task is already pending, a request with the same Idempotency-Key is still in flight, (cancelling) the task has already ended, or (deciding) the action is not awaiting approval */
            409: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MeResponse"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    getUsage: {
        parameters: {
            query?: {
                /**
                 * @description A UTC month, `YYYY-MM`; this month when left out
                 * @example 2026-11
                 */
                month?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The month's spend */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The webhooks */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListWebhooksResponse"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateWebhookBody"];
            };
        };
        responses: {
            /** @description The webhook and its signing secret (whsec_…), shown only now */
            201: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedWebhookResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Conflict: an identical task is already pending, a request with the same Idempotency-Key is still in flight, (cancelling) the task has already ended, or (deciding) the action is not awaiting approval */
            409: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error409"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach, or webhooks are not enabled on this server */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhooksUnavailableError"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook, as POST /v1/webhooks answered it */
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook, as POST /v1/webhooks answered it */
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The webhook, its new signing secret (whsec_…), shown only now, and until when the old one still signs */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RotatedSecretResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach, or webhooks are not enabled on this server */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhooksUnavailableError"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook, as POST /v1/webhooks answered it */
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The latest delivery attempts */
            200: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ListDeliveriesResponse"];
                };
            };
            /** @description Validation error; the message names the field */
            400: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error400"];
                };
            };
            /** @description Missing, invalid, revoked or expired API key */
            401: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error401"];
                };
            };
            /** @description Not found, or owned by another account */
            404: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error404"];
                };
            };
            /** @description Rate limited; see Retry-After */
            429: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error429"];
                };
            };
            /** @description NATS or MongoDB is out of reach for now; retry after Retry-After seconds */
            503: {
                headers: {
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error503"];
                };
            };
        };
    };
}

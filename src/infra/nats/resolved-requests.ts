import { RequestOne } from '@nats-io/nats-core/internal'

/**
 * nats.js (3.4) makes a `RequestError`, stack trace and all, for every request it resolves:
 * `RequestOne.resolver` ends by calling `cancel()`, which rejects the promise it has just settled
 * with a new error that nobody can see. Every JetStream append, KV create and direct get is such
 * a request; the errors cost 0.04 ms of a no-op task's 0.9 (docs/benchmarks.md, 2026-11-28).
 *
 * Installed once per process, before connecting: the `cancel()` a resolver makes of its own
 * request only lets the request go from the connection's map. Every other cancel (a timeout, a
 * failed publish, the connection closing) is nats.js' own. Its code is called, not copied, so a
 * nats.js that stops making the error makes this a no-op.
 */
export function letResolvedRequestsGo(): void {
  if (installed) return
  installed = true
  const { resolver, cancel } = RequestOne.prototype
  let resolving: RequestOne | undefined
  RequestOne.prototype.resolver = function (this: RequestOne, err, msg) {
    resolving = this
    try {
      resolver.call(this, err, msg)
    } finally {
      resolving = undefined
    }
  }
  RequestOne.prototype.cancel = function (this: RequestOne, err) {
    if (err === undefined && this === resolving) this.mux.cancel(this)
    else cancel.call(this, err)
  }
}

let installed = false

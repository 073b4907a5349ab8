import { NatsConnectionImpl, RequestOne } from '@nats-io/nats-core/internal'
import type { NatsConnection } from '@nats-io/transport-node'

/**
 * nats.js (3.4) makes a `RequestError`, stack trace and all, for every request it resolves:
 * `RequestOne.resolver` ends by calling `cancel()`, which rejects the promise it has just settled
 * with a new error that nobody can see. Every JetStream append, KV create and direct get is such
 * a request; the errors cost 0.04 ms of a no-op task's 0.9 (docs/benchmarks.md, 2026-11-28).
 * The fix upstream is one line: the resolver letting the request go (`this.mux.cancel(this)`)
 * instead of cancelling it.
 *
 * Until then, installed once per process: the `cancel()` a resolver makes of its own request
 * stops the request's timer and lets it go from the connection's map, as nats.js' own does, but
 * makes no error. Every other cancel (a timeout, a failed publish) is nats.js' own, as is the
 * resolver itself. A patch of the installed file (patch-package) would need an install step in
 * every image and clone; this needs none, and says when it cannot reach the connection's class.
 *
 * Returns false, changing nothing, when `nc` is not of the nats.js copy this module patches
 * (two copies installed: bump @nats-io/nats-core with transport-node, which pins it).
 */
export function letResolvedRequestsGo(nc: NatsConnection): boolean {
  if (!(nc instanceof NatsConnectionImpl)) return false
  if (installed) return true
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
    if (err !== undefined || this !== resolving) return cancel.call(this, err)
    // nats.js' resolver has stopped the timer already; stopped here too, a resolver that ever stops doing so leaks none.
    this.timer?.cancel()
    this.mux.cancel(this)
  }
  return true
}

let installed = false

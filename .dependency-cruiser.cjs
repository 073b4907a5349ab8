/**
 * Floors only point down (design invariant 13, ADR 0031, docs/architecture.md "Floors").
 * `npm test` runs `depcruise --validate` with these rules over src, consumers, projections and bin.
 */
/**
 * The one known exception (ADR 0031): the MCP endpoint is a route of the HTTP server, behind its
 * auth hook, and takes the request's principal from it (`principalOf` in src/http/plugins/auth.ts,
 * which also declares `request.principal`). Nothing else in src/mcp may import src/http.
 */
const MCP_ON_HTTP_EXCEPTIONS = ['^src/http/plugins/auth[.]ts$']

const IO_BUILTINS = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'dns', 'dgram', 'tls', 'child_process', 'cluster', 'worker_threads', 'readline', 'os', 'process']

module.exports = {
  forbidden: [
    {
      name: 'no-runtime-cycle',
      severity: 'error',
      comment: 'No import cycle at run time; an import of types only vanishes when compiled, so it may close a loop.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'The domain imports only itself, typebox (its schemas) and node:crypto (hashes and random ids, no I/O).',
      from: { path: '^src/domain/' },
      to: { pathNot: ['^src/domain/', '(^|node_modules/)typebox(/|$)', '^crypto$'] },
    },
    {
      name: 'domain-imports-no-io-builtin',
      severity: 'error',
      comment: 'Belt and braces for the rule above: no file, network or process module in the domain.',
      from: { path: '^src/domain/' },
      to: { dependencyTypes: ['core'], path: `^(${IO_BUILTINS.join('|')})$` },
    },
    {
      name: 'write-side-reads-no-read-side',
      severity: 'error',
      comment: 'Commands, the domain and the infrastructure import nothing from projections/ or consumers/: they return events and state; inline projections are wired at the composition root.',
      from: { path: '^src/(commands|domain|infra)/' },
      to: { path: '^(projections|consumers)/' },
    },
    {
      name: 'infra-holds-connections-only',
      severity: 'error',
      comment: 'The infrastructure is below everything but the domain and the configuration.',
      from: { path: '^src/infra/' },
      to: { path: '^src/(commands|queries|contract|api|http|mcp|cli|service|app-context)' },
    },
    {
      name: 'commands-below-the-surfaces',
      severity: 'error',
      comment: 'Commands are called by the application layer, the worker and the CLI; they call none of them.',
      from: { path: '^src/commands/' },
      to: { path: '^src/(api|http|mcp|cli|service|app-context)' },
    },
    {
      name: 'read-side-below-the-surfaces',
      severity: 'error',
      comment: 'Projections fold events into read models; they know no command, transport or consumer.',
      from: { path: '^projections/' },
      to: { path: ['^consumers/', '^src/(commands|queries|api|http|mcp|cli|service|app-context)'] },
    },
    {
      name: 'consumers-below-the-transports',
      severity: 'error',
      comment: 'The worker and the webhook deliverer use commands, queries and the application layer, never a transport or the composition root.',
      from: { path: '^consumers/' },
      to: { path: '^src/(http|mcp|cli|service)' },
    },
    {
      name: 'queries-below-the-surfaces',
      severity: 'error',
      comment: 'Queries read the log and the read models for the layers above; they call none of them.',
      from: { path: '^src/queries/' },
      to: { path: ['^consumers/', '^src/(commands|api|http|mcp|cli|service|app-context)'] },
    },
    {
      name: 'contract-on-the-domain-only',
      severity: 'error',
      comment: 'The request/response contract is schemas over the domain: no connection, command, read model or transport.',
      from: { path: '^src/contract/' },
      to: { path: ['^consumers/', '^projections/', '^src/(infra|commands|queries|api|http|mcp|cli|service|app-context)'] },
    },
    {
      name: 'http-below-the-root',
      severity: 'error',
      comment: 'The HTTP layer is composed by src/service.ts and the CLI, never the other way round.',
      from: { path: '^src/http/' },
      to: { path: '^src/(cli|service)' },
    },
    {
      name: 'contract-below-http',
      severity: 'error',
      comment: 'src/api and src/mcp do not import src/http: the request/response contract (src/contract) lies below both.',
      from: { path: '^src/api/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'mcp-beside-http',
      severity: 'error',
      comment: 'src/mcp does not import src/http, but for the commented exceptions above.',
      from: { path: '^src/mcp/' },
      to: { path: '^src/http/', pathNot: MCP_ON_HTTP_EXCEPTIONS },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    // An import of types only is still a floor crossed; the cycle rule alone looks past them.
    tsPreCompilationDeps: true,
    moduleSystems: ['es6', 'cjs'],
  },
}

/**
 * Dependency rules for src/ (`npm run depcheck`, run in CI by .ci/run). See docs/architecture.md#import-arrows.
 * - no cycle between folders (a folder and the folders it imports, transitively, never import it back);
 * - server/ is the transport: it imports nothing of the domain (only its own files and packages);
 * - the domain raises domain errors (src/errors/) and knows no JSON-RPC: no domain folder imports src/rpc/,
 *   where the JSON-RPC error module and the one error mapping live (docs/architecture.md#errors).
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment: 'Folders import one way (docs/architecture.md#import-arrows): a folder cycle is not allowed.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'server-knows-no-domain',
      comment: 'src/server/ is the transport and knows no chain: it may import only src/server/ and packages.',
      severity: 'error',
      from: { path: '^src/server/' },
      to: { path: '^src/', pathNot: '^src/server/' },
    },
    {
      name: 'domain-knows-no-rpc-errors',
      comment:
        'Domain folders raise the errors of src/errors/ and never import src/rpc/ (RpcError and the JSON-RPC codes in ' +
        'src/rpc/rpc-error.ts): src/rpc/error-mapping.ts maps them once (docs/architecture.md#errors).',
      severity: 'error',
      from: { path: '^src/(accounts|chain|crypto|errors|events|execution|fork|miner|rsk|state|state-file|txpool|types|util)/' },
      to: { path: '^src/rpc/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
}

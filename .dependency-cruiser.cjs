/**
 * Dependency rules for src/ (`npm run depcheck`, run in CI by .ci/run). See docs/architecture.md#import-arrows.
 * - no cycle between folders (a folder and the folders it imports, transitively, never import it back);
 * - server/ is the transport: it imports nothing of the domain (only its own files and packages).
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
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
}

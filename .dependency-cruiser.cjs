/**
 * Dependency rules for src/ (`npm run depcheck`, run in CI by .ci/run). See docs/architecture.md#import-arrows.
 * - no cycle between folders (a folder and the folders it imports, transitively, never import it back), nor between
 *   files;
 * - server/ is the transport: it imports nothing of the domain (only its own files and packages);
 * - the storage layers point down: unitrie/ imports only util/ and crypto/; rsk/ only unitrie/ and the base folders;
 *   blocks/ (the block store) never imports db/ (LevelDB) nor chain/; db/ never imports chain/;
 * - the domain raises domain errors (src/errors/) and knows no JSON-RPC: no domain folder imports src/rpc/,
 *   where the JSON-RPC error module and the one error mapping live (docs/architecture.md#errors);
 * - src/explorer/ (browser code) and the node code never import each other.
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
      name: 'no-file-cycle',
      comment: 'No module imports itself back through others, type-only imports included.',
      severity: 'error',
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
      from: {
        path: '^src/(accounts|blocks|chain|crypto|db|errors|events|execution|fork|miner|rsk|state|state-file|txpool|types|unitrie|util)/',
      },
      to: { path: '^src/rpc/' },
    },
    {
      name: 'unitrie-stands-alone',
      comment: 'src/unitrie/ is the trie and its codec: it imports only itself, src/util/ and src/crypto/.',
      severity: 'error',
      from: { path: '^src/unitrie/' },
      to: { path: '^src/', pathNot: '^src/(unitrie|util|crypto)/' },
    },
    {
      name: 'rsk-below-the-chain',
      comment:
        'src/rsk/ holds the network rules and codecs (networks, block and receipt encodings, merged mining): it may ' +
        'import the Unitrie and the base folders, never the block store, the database, the state or the chain.',
      severity: 'error',
      from: { path: '^src/rsk/' },
      to: { path: '^src/', pathNot: '^src/(rsk|unitrie|util|crypto|types)/' },
    },
    {
      name: 'blocks-know-no-db',
      comment:
        'src/blocks/ is the block store and its in-memory backend: it never imports the database (src/db/, which ' +
        'implements its backend interface over LevelDB) nor the chain that uses it.',
      severity: 'error',
      from: { path: '^src/blocks/' },
      to: { path: '^src/(db|chain|miner|events|fork|state-file|cli|rpc|server)/' },
    },
    {
      name: 'db-below-the-chain',
      comment:
        'src/db/ is LevelDB persistence (records, layout, the --db block backend): the chain uses it, never back.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/(chain|miner|events|fork|state-file|cli|rpc|server)/' },
    },
    {
      name: 'explorer-is-browser-code',
      comment:
        'src/explorer/ is the browser explorer (bundled by scripts/bundle-explorer.mjs): it imports only itself and ' +
        'browser packages (preact, viem), never the node code nor Node built-ins.',
      severity: 'error',
      from: { path: '^src/explorer/' },
      to: { pathNot: '^src/explorer/|^node_modules/(preact|viem|ox|abitype|@noble|@scure|@adraffy)/' },
    },
    {
      name: 'node-knows-no-explorer',
      comment: 'The node serves the built explorer as files (dist/explorer/) and never imports its sources.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/explorer/' },
      to: { path: '^src/explorer/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
}

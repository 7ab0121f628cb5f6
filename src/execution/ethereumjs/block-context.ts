/**
 * The block the EVM runs "in", built cheaply (docs/architecture.md#dependency-patches).
 *
 * Reach 1 — derived context blocks: one real @ethereumjs Block is built per node and each block context is a
 * thin object over it (Object.create) with its own number, timestamp, gas limit and difficulty, and an empty
 * hash cache (createBlock costs ~2% of an automined transfer: Common copy, header validation). Relies on: the
 * header's `number`, `timestamp`, `gasLimit` and `difficulty` being own data properties and the VM reading them
 * (and `block.header`) through the object; the header's memo `cache.hash`, which must not be shared. Checked by
 * {@link checkBlockShape} at start-up.
 *
 * Reach 2 — the blockchain stub: the VM gets an object with only `getBlock(n)` (whose result only answers
 * `hash()`, for BLOCKHASH), `putBlock` and `shallowCopy` (for `vm.shallowCopy()`). Relies on: executing
 * transactions with runTx/runCall reading nothing else of the blockchain. A new call fails loudly (a TypeError
 * naming the method), never silently.
 */
import type { Block } from '@ethereumjs/block'
import { failOnProblems } from './shape-error.js'

/** The header fields a context overrides. */
export interface ContextFields {
  number: bigint
  /** Seconds. */
  timestamp: bigint
  gasLimit: bigint
  difficulty: bigint
}

/**
 * A block reading everything from `base` but the fields given.
 * @param base a block built with `freeze: false`
 */
export function deriveBlock(base: Block, fields: ContextFields): Block {
  const header = Object.create(base.header, {
    number: { value: fields.number, enumerable: true },
    timestamp: { value: fields.timestamp, enumerable: true },
    gasLimit: { value: fields.gasLimit, enumerable: true },
    difficulty: { value: fields.difficulty, enumerable: true },
    cache: { value: { hash: undefined }, enumerable: true },
  }) as Block['header']
  return Object.create(base, { header: { value: header, enumerable: true } }) as Block
}

/**
 * The start-up guard of derived blocks.
 * @param base the block {@link deriveBlock} will derive from
 * @throws EthereumjsShapeError listing every mismatch
 */
export function checkBlockShape(base: Block): void {
  const problems: string[] = []
  const own = Object.getOwnPropertyDescriptor(base, 'header')
  if (own === undefined || !('value' in own)) problems.push('Block.header is not an own data property')
  for (const f of ['number', 'timestamp', 'gasLimit', 'difficulty']) {
    const d = Object.getOwnPropertyDescriptor(base.header, f)
    if (d === undefined || !('value' in d) || typeof d.value !== 'bigint')
      problems.push(`BlockHeader.${f} is not an own bigint data property`)
  }
  const cache = (base.header as unknown as { cache?: unknown }).cache
  if (typeof cache !== 'object' || cache === null || !('hash' in cache))
    problems.push('BlockHeader.cache.hash is missing')
  const derived = deriveBlock(base, { number: 7n, timestamp: 8n, gasLimit: 9n, difficulty: 10n })
  if (derived.header.number !== 7n || derived.header.gasLimit !== 9n)
    problems.push('a derived header does not read its own fields')
  failOnProblems('context block', problems)
}

/** A block-hash lookup: the hash of canonical block `number`, or undefined when unknown. */
export type BlockHashSource = (number: bigint) => Promise<Uint8Array | undefined>

/**
 * The blockchain object for `createVM({ blockchain })`: BLOCKHASH answers from `blockHash` (32 zero bytes when
 * unknown). Typed loosely on purpose: it implements only what the VM calls (see the module doc).
 */
export function blockHashBlockchain(blockHash: BlockHashSource): never {
  const blockchain = {
    async getBlock(n: number | bigint) {
      const hash = await blockHash(BigInt(n))
      return { hash: () => hash ?? new Uint8Array(32) }
    },
    async putBlock() {},
    shallowCopy() {
      return blockchain
    },
  }
  return blockchain as never
}

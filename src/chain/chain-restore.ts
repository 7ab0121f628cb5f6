/**
 * Continuing a stored chain (`--db`): checks that the database holds a chain of this storage format, genesis
 * and chain id, hands its head to the block store (which reads other blocks from the database on demand) and
 * makes its head's state the live one; or initialises an empty database with the genesis. Called once by Chain.create
 * (src/chain/chain.ts), before anything else can reach the chain.
 */
import type { Common } from '@ethereumjs/common'
import type { Executor } from '../execution/executor.js'
import { toKey } from '../util/bytes.js'
import type { BlockStore } from '../blocks/block-store.js'
import { decodeStoredBlock } from '../blocks/stored-block.js'
import {
  blockIndexOps,
  STORAGE_FORMAT,
  StorageCorruptError,
  StorageMismatchError,
  type ChainStorage,
  type PutOp,
  type StoredMeta,
} from '../db/chain-storage.js'
import type { BlockRecord } from '../types/records.js'
import { throttleProgress, type ProgressListener } from '../util/progress.js'

/** Blocks per batch when a format 1 directory gets its indexes. */
const UPGRADE_BATCH_BLOCKS = 2_000

/**
 * Upgrades a format 1 directory (blocks without hash and transaction indexes) to the current format: one pass over
 * its blocks, checking that each follows its parent, writing the index records in batches, then the new meta.
 * Interrupted, it starts over at the next start (the indexes are idempotent puts).
 * @param onProgress receives `upgrading the storage format` (blocks done of the head, every batch, throttled)
 * @throws StorageCorruptError when a block is missing or does not follow its parent
 */
async function upgradeFormat1(
  storage: ChainStorage,
  head: bigint,
  genesis: BlockRecord,
  common: Common,
  meta: StoredMeta,
  onProgress: ProgressListener | undefined,
): Promise<void> {
  // the genesis is this configuration's (its hash was checked against the meta)
  let ops: PutOp[] = blockIndexOps(0n, genesis.hash, [])
  let parentHash = genesis.hashKey
  const report = onProgress && throttleProgress(onProgress)
  const step = (done: bigint) =>
    report?.({ phase: 'upgrading the storage format', done: Number(done), total: Number(head), unit: 'blocks' })
  step(0n)
  for await (const { number, rlp, extra } of storage.encodedRange(1n, head)) {
    const block = decodeStoredBlock(rlp, extra, common, true)
    if (toKey(block.header.parentHash) !== parentHash) {
      throw new StorageCorruptError(`${storage.label}: block ${number} does not follow block ${number - 1n}`)
    }
    parentHash = block.hashKey
    ops.push(
      ...blockIndexOps(
        number,
        block.hash,
        block.transactions.map((x) => x.hash),
      ),
    )
    if (number % BigInt(UPGRADE_BATCH_BLOCKS) === 0n) {
      await storage.writeIndexes(ops)
      ops = []
      step(number)
    }
  }
  await storage.writeIndexes(ops)
  await storage.writeMeta(meta)
}

/** The parts of the chain a restore fills. */
export interface RestoreTarget {
  executor: Executor
  /** The (empty) block store the stored blocks go to. */
  blocks: BlockStore
  common: Common
  /** Network number (30-33) of this configuration. */
  network: number
  /** Receives the progress of a format upgrade (see {@link upgradeFormat1}). */
  onProgress?: ProgressListener
}

/**
 * Continues the chain stored in `storage` (blocks, indexes, head, live state), or initialises the storage with
 * `genesis`.
 * @returns 'new' when the storage was empty (the caller appends the genesis), 'continued' when its chain was loaded
 * @throws StorageMismatchError when it holds another storage format, genesis or chain id; StorageCorruptError
 *   when its blocks do not follow each other, the head is missing or the head's state is missing
 */
export async function restoreChain(
  storage: ChainStorage,
  genesis: BlockRecord,
  t: RestoreTarget,
): Promise<'new' | 'continued'> {
  const sm = t.executor.stateManager
  sm.db.loadRoot = (root) => storage.loadRoot(root)
  const meta: StoredMeta = {
    format: STORAGE_FORMAT,
    network: t.network,
    chainId: Number(t.common.chainId()),
    genesisHash: genesis.hashKey,
  }
  const stored = await storage.read()
  if (stored === undefined) {
    await storage.init(meta, genesis, sm.getTrie())
    return 'new'
  }
  const m = stored.meta
  if (m.format !== STORAGE_FORMAT && m.format !== 1) {
    throw new StorageMismatchError(
      `${storage.label} holds a chain in storage format ${m.format}; this version reads format ${STORAGE_FORMAT}`,
    )
  }
  if (m.genesisHash !== meta.genesisHash) {
    throw new StorageMismatchError(
      `${storage.label} holds a chain with a different genesis (network ${m.network}, genesis 0x${m.genesisHash}); ` +
        `this configuration has network ${meta.network}, genesis 0x${meta.genesisHash}. ` +
        'Use another directory, or the --network, --gas-limit, --mnemonic and --balance it was created with',
    )
  }
  if (m.chainId !== meta.chainId) {
    throw new StorageMismatchError(
      `${storage.label} holds a chain with chain id ${m.chainId}; this configuration has chain id ${meta.chainId}`,
    )
  }
  if (m.format === 1) await upgradeFormat1(storage, stored.head, genesis, t.common, meta, t.onProgress)
  // nothing proportional to the chain's length: the head is decoded, everything else is read on demand
  let head = genesis
  if (stored.head > 0n) {
    const enc = await storage.encoded(stored.head)
    if (enc === undefined) throw new StorageCorruptError(`${storage.label}: head ${stored.head} is missing`)
    head = decodeStoredBlock(enc.rlp, enc.extra, t.common, true)
    if (head.header.number !== stored.head) {
      throw new StorageCorruptError(
        `${storage.label}: the record of block ${stored.head} holds block ${head.header.number}`,
      )
    }
  }
  t.blocks.adoptStored(genesis, head, (await storage.prunedUpTo()) ?? 0n)
  if ((await sm.db.load(stored.liveRoot)) === undefined) {
    throw new StorageCorruptError(`${storage.label}: the state 0x${toKey(stored.liveRoot)} of the head is missing`)
  }
  await t.executor.resetTo(stored.liveRoot)
  return 'continued'
}

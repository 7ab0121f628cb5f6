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
import { STORAGE_FORMAT, type ChainStorage, type StoredMeta } from '../db/chain-storage.js'
import type { BlockRecord } from '../types/records.js'
import { StorageCorruptError, StorageMismatchError } from '../errors/storage-errors.js'

/** The parts of the chain a restore fills. */
export interface RestoreTarget {
  executor: Executor
  /** The (empty) block store the stored blocks go to. */
  blocks: BlockStore
  common: Common
  /** Network number (30-33) of this configuration. */
  network: number
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
  if (m.format !== STORAGE_FORMAT) {
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
  // nothing proportional to the chain's length: the head is decoded, everything else is read on demand
  let head = genesis
  if (stored.head > 0n) {
    const enc = await storage.encoded(stored.head)
    if (enc === undefined) throw new StorageCorruptError(`${storage.label}: head ${stored.head} is missing`)
    head = decodeStoredBlock(enc.rlp, enc.derived, t.common, true)
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

/**
 * Changes of the live state outside blocks, and the state-file side of the chain: in-place account changes
 * (anvil_/hardhat_ setBalance, setNonce, setCode, setStorageAt), adopting a state built from the live one
 * (anvil_loadState, an Anvil state file), continuing a dumped chain (`--load-state` of a node-cli state file)
 * and capturing the chain for a dump. With `--db` an in-place change is written before it counts, and rolled
 * back when the write fails. Every method runs inside the chain's queue (src/chain/chain.ts); the chain drops
 * its cached `pending` block afterwards.
 */
import type { Common } from '@ethereumjs/common'
import type { Executor } from '../execution/executor.js'
import type { Unitrie } from '../unitrie/unitrie.js'
import type { UnitrieStateManager } from '../state/unitrie-state-manager.js'
import { toKey } from '../util/bytes.js'
import { throttleProgress, type ProgressListener } from '../util/progress.js'
import type { BlockStore } from '../blocks/block-store.js'
import type { ChainStorage } from '../db/chain-storage.js'
import type { EncodedBlock } from '../blocks/block-codec.js'
import { decodeStoredBlock } from '../blocks/stored-block.js'
import type { BlockRecord } from '../types/records.js'
import type { IndexedTx } from '../blocks/address-index.js'
import { decodeBlockAddresses, encodeBlockAddresses } from '../blocks/address-index-record.js'
import type { AddressHistory } from './address-history.js'
import type { LogIndex } from '../blocks/log-index.js'

/** A block of a state file: its encodings and, when the dump had it, its address-index record. */
export interface DumpedBlock extends EncodedBlock {
  /** The address-index record (src/blocks/address-index-record.ts); absent in files written before it existed. */
  addresses?: Uint8Array
}

/** A consistent capture of the chain for a state dump. */
export interface ChainCapture {
  /** The live state (a Unitrie is immutable, so it stays as captured while the chain goes on). */
  state: Unitrie
  /** Blocks 1 … head, encoded (src/blocks/block-codec.ts), with their address-index records. */
  blocks: DumpedBlock[]
  head: BlockRecord
  genesis: BlockRecord
}

/** Blocks checked between two progress reports of {@link LiveState.importChain}. */
const BLOCKS_PER_REPORT = 64

/** In-place changes of the live state, and state-file capture and import. */
export class LiveState {
  private readonly blocks: BlockStore
  private readonly history: AddressHistory
  private readonly logs: LogIndex

  constructor(
    private readonly executor: Executor,
    chain: { blocks: BlockStore; history: AddressHistory; logs: LogIndex },
    private readonly common: Common,
    private readonly database: ChainStorage | undefined,
  ) {
    this.blocks = chain.blocks
    this.history = chain.history
    this.logs = chain.logs
  }

  /**
   * Changes account state in place: no block is mined; reads at `latest` and the next block see it.
   * @param change receives the live state manager (inside a checkpoint that is committed)
   * @throws what `change` or the database write throws (the state is then as before)
   */
  async modify(change: (sm: UnitrieStateManager) => Promise<void>): Promise<void> {
    const before = this.executor.stateRoot
    await this.executor.modify(change)
    await this.persist(this.executor.stateManager.getTrie(), before)
  }

  /**
   * Makes a state built from the live one the live state: an in-place change like {@link modify}, not a block.
   * @param build receives the live state, returns the new one (it must not reject after partial work: nothing
   *   is changed when it rejects)
   */
  async replace(build: (live: Unitrie) => Promise<Unitrie>): Promise<void> {
    const sm = this.executor.stateManager
    const before = this.executor.stateRoot
    const next = await build(sm.getTrie())
    sm.db.register(next)
    await this.executor.resetTo(next.hash())
    await this.persist(next, before)
  }

  /**
   * Continues a dumped chain: appends its blocks after the genesis to the block store and makes `state` the
   * live state. Only on a chain that has mined nothing and keeps no database.
   * @param blocks `[blockRlp, derived, addresses?]` of blocks 1 … head (src/db/chain-storage.ts encodings; the
   *   address-index record when the file has it: blocks without one are not in the address index)
   * @param state the live state of the dump (its root was checked by the caller)
   * @param onProgress receives the `importing blocks` step (blocks checked of all, every
   *   {@link BLOCKS_PER_REPORT} blocks, throttled)
   * @throws Error when the chain is not fresh or a block does not decode or follow its parent (nothing changed)
   */
  async importChain(
    blocks: readonly (readonly [Uint8Array, Uint8Array, Uint8Array?])[],
    state: Unitrie,
    onProgress?: ProgressListener,
  ): Promise<void> {
    if (this.blocks.length !== 1 || this.database) {
      throw new Error('a dumped chain can only be loaded into a new in-memory chain')
    }
    // checked block by block (decoded one at a time, not kept), then added in their encodings
    const checked: { enc: EncodedBlock; hash: Uint8Array; txHashes: Uint8Array[]; addresses?: IndexedTx[] }[] = []
    let parent = this.blocks.head
    const report = onProgress && throttleProgress(onProgress)
    const total = blocks.length
    for (const [rlp, derived, addresses] of blocks) {
      if (report !== undefined && checked.length % BLOCKS_PER_REPORT === 0)
        report({ phase: 'importing blocks', done: checked.length, total, unit: 'blocks' })
      const block = decodeStoredBlock(rlp, derived, this.common, true)
      if (block.header.number !== parent.header.number + 1n || toKey(block.header.parentHash) !== parent.hashKey) {
        throw new Error(`block ${block.header.number} does not follow block ${parent.header.number}`)
      }
      let indexed: IndexedTx[] | undefined
      try {
        indexed = addresses && decodeBlockAddresses(addresses)
      } catch (err) {
        throw new Error(`block ${block.header.number}: ${(err as Error).message}`)
      }
      const txHashes = block.transactions.map((t) => t.hash)
      if (indexed !== undefined && indexed.length !== txHashes.length) {
        throw new Error(`block ${block.header.number}: an address record of ${indexed.length} transactions`)
      }
      checked.push({ enc: { rlp, derived }, hash: block.hash, txHashes, addresses: indexed })
      parent = block
    }
    const sm = this.executor.stateManager
    sm.db.register(state)
    sm.db.pin(state.hash())
    for (const c of checked.slice(0, -1)) this.blocks.addEncoded(c.enc, c.hash, c.txHashes)
    if (checked.length > 0) this.blocks.add(parent, checked[checked.length - 1]!.enc)
    checked.forEach((c, i) => c.addresses && this.history.append(BigInt(i + 1), c.addresses))
    // the loaded blocks' logs are scanned by queries; the log index covers the blocks mined from now on
    this.logs.restartAt(Number(parent.header.number) + 1)
    await this.executor.resetTo(state.hash())
  }

  /** The live state, blocks 1 … head (encoded, with their address records), the head and the genesis, as now. */
  async capture(): Promise<ChainCapture> {
    const records = await this.history.blockRecords()
    const blocks: DumpedBlock[] = await this.blocks.encodedAfterGenesis()
    blocks.forEach((b, i) => {
      const txs = records.get(i + 1)
      if (txs !== undefined) b.addresses = encodeBlockAddresses(txs)
    })
    return {
      state: this.executor.stateManager.getTrie(),
      blocks,
      head: this.blocks.head,
      genesis: this.blocks.genesis,
    }
  }

  /** With a database: writes the new live state, or goes back to `before` and rethrows when that fails. */
  private async persist(state: Unitrie, before: Uint8Array): Promise<void> {
    if (!this.database) return
    try {
      await this.database.writeLiveState(state)
    } catch (err) {
      await this.executor.resetTo(before)
      throw err
    }
  }
}

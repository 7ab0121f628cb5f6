/**
 * The merged-mining server side of mnr_getWork / mnr_submitBitcoinBlock* (reference
 * J/co/rsk/mine/MinerServerImpl.java, J/co/rsk/rpc/modules/mnr/MnrModuleImpl.java):
 * - getWork builds the next block (the pool's transactions, not committed) and answers a {@link MinerWork}
 *   (hashForMergedMining, target, fees paid to the miner, notify, parent hash); the last 20 works are kept
 *   by hashForMergedMining (blocksWaitingForPoW); `notify` is true the first time a work for a new parent is
 *   handed out;
 * - a submission is found by the hash its coinbase commits to (after the last "RSKBLOCK:" tag), its
 *   merged-mining fields are built (Bitcoin header, compressed coinbase, RSKIP92 proof from the block's
 *   transactions, from their ids, or from a merkle branch), checked with the proof-of-work rule, and the
 *   block is imported. The result is a {@link SubmittedBlockInfo} (the ImportResult name, the block's hash and
 *   number); failures are MergedMiningSubmitError (the reference's JsonRpcSubmitBlockException).
 * Both results are domain values: src/rpc/format.ts turns them into the reference's JSON (formatMinerWork,
 * formatSubmittedBlockInfo).
 *
 * This node keeps no side chains: a solution for a work whose parent is no longer the best block is
 * refused (MergedMiningSubmitError) instead of being imported as IMPORTED_NOT_BEST.
 */
import { LRUCache } from 'lru-cache'
import type { Chain } from '../chain.js'
import type { MiningWork } from '../mining/consensus.js'
import { StaleWorkError } from '../../errors/stale-work-error.js'
import { MergedMiningSubmitError } from '../../errors/domain-errors.js'
import { headerHash } from '../../rsk/block-encoding.js'
import { parseBtcBlock, parseBtcTransaction } from '../../rsk/merged-mining/bitcoin-codec.js'
import { coinbaseMerkleBranch } from '../../rsk/merged-mining/bitcoin-merkle-proof.js'
import { sha256d } from '../../rsk/merged-mining/bitcoin-sha256.js'
import { targetBytes, validateMergedMining, type MergedMiningFields } from '../../rsk/merged-mining/merged-mining.js'
import { compressCoinbase, extractHashForMergedMining } from '../../rsk/merged-mining/merged-mining-coinbase.js'
import { concat, fromHex, toHex, toKey } from '../../util/bytes.js'

/** blocksWaitingForPoW size (MinerServerImpl.CACHE_SIZE). */
const CACHE_SIZE = 20

/** The work mnr_getWork hands out (the reference's MinerWork). */
export interface MinerWork {
  /** The 32-byte hash the miner's Bitcoin coinbase commits to. */
  hashForMergedMining: Uint8Array
  /** The proof-of-work target for the block's difficulty: 32 bytes, big-endian (merged-mining.ts targetBytes). */
  target: Uint8Array
  /** The fees the block's transactions pay its miner (wei). */
  feesPaidToMiner: bigint
  /** True the first time a work on this parent is handed out. */
  notify: boolean
  /** The 32-byte hash of the block the work builds on. */
  parentHash: Uint8Array
}

/** The outcome of an accepted mnr_submit* solution (the reference's SubmittedBlockInfo). */
export interface SubmittedBlockInfo {
  /** The reference's ImportResult name (only a new best block is imported here). */
  importResult: 'IMPORTED_BEST'
  /** The 32-byte hash of the imported block. */
  blockHash: Uint8Array
  /** Its number. */
  blockNumber: bigint
}

function submitError(message: string): MergedMiningSubmitError {
  return new MergedMiningSubmitError(message)
}

function reversed(b: Uint8Array): Uint8Array {
  return Uint8Array.from(b).reverse()
}

/** Parses hex with or without 0x; throws MergedMiningSubmitError on bad input. */
function hexBytes(s: string, what: string): Uint8Array {
  const h = s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s
  if (!/^[0-9a-fA-F]*$/.test(h) || h.length % 2 !== 0) throw submitError(`${what} is not valid hex`)
  return fromHex(h)
}

/** Space-separated hashes (MnrModuleImpl.parseHashes), each 32 bytes. */
function hashList(s: string, what: string): Uint8Array[] {
  return s
    .trim()
    .split(/\s+/)
    .filter((x) => x.length > 0)
    .map((h) => {
      const b = hexBytes(h, what)
      if (b.length !== 32) throw submitError(`${what}: each hash must have 32 bytes`)
      return b
    })
}

/** Works handed to merged miners and the solutions they submit. */
export class MergedMiningWorkServer {
  /**
   * The works handed out, by hashForMergedMining: the CACHE_SIZE most recently handed out (lru-cache, read with
   * `peek`, so a submission does not keep a work longer — as the reference's insertion-ordered map).
   */
  private readonly waiting = new LRUCache<string, MiningWork>({ max: CACHE_SIZE })
  private current: { key: string; work: MiningWork } | undefined
  private lastNotifiedParent: string | undefined

  constructor(private readonly chain: Chain) {}

  /** The work for the next block (built when the best block, the pool or the state changed). */
  async work(): Promise<MiningWork> {
    const reads = this.chain.reads
    const key = `${reads.head.hashKey}:${toKey(this.chain.executor.stateRoot)}:${reads.poolVersion}`
    if (this.current?.key === key) return this.current.work
    const work = await this.chain.buildWork()
    this.current = { key, work }
    this.waiting.set(toKey(work.hashForMergedMining), work)
    return work
  }

  /** mnr_getWork. */
  async getWork(): Promise<MinerWork> {
    const work = await this.work()
    const parent = toKey(work.parentHash)
    const notify = this.lastNotifiedParent !== parent
    this.lastNotifiedParent = parent
    return {
      hashForMergedMining: work.hashForMergedMining,
      target: targetBytes(work.block.header.difficulty),
      feesPaidToMiner: work.block.header.paidFees,
      notify,
      parentHash: work.parentHash,
    }
  }

  /** mnr_submitBitcoinBlock: a whole Bitcoin block whose first transaction is the coinbase. */
  submitBitcoinBlock(blockHex: string): Promise<SubmittedBlockInfo> {
    const block = this.parse(() => parseBtcBlock(hexBytes(blockHex, 'the Bitcoin block')))
    const coinbase = block.transactions[0]
    if (!coinbase) throw submitError('the Bitcoin block has no transactions')
    const txids = block.transactions.map((t) => reversed(sha256d(t)))
    return this.process(block.header, coinbase, () => concat(...coinbaseMerkleBranch(txids)))
  }

  /** mnr_submitBitcoinBlockTransactions: header, coinbase and the block's transaction ids (display order). */
  submitBitcoinBlockTransactions(
    _blockHashHex: string,
    headerHex: string,
    coinbaseHex: string,
    txHashesHex: string,
  ): Promise<SubmittedBlockInfo> {
    const header = this.parse(() => parseBtcBlock(hexBytes(headerHex, 'the Bitcoin header')).header)
    const coinbase = this.parse(() => parseBtcTransaction(hexBytes(coinbaseHex, 'the coinbase')))
    const txids = hashList(txHashesHex, 'txHashes')
    if (txids.length === 0) throw submitError("The list of transaction hashes can't be empty")
    return this.process(header, coinbase, () => concat(...coinbaseMerkleBranch(txids)))
  }

  /**
   * mnr_submitBitcoinBlockPartialMerkle: header, coinbase, the coinbase's merkle branch (hex in internal byte
   * order, the coinbase's own hash first) and the block's transaction count (hex).
   */
  submitBitcoinBlockPartialMerkle(
    _blockHashHex: string,
    headerHex: string,
    coinbaseHex: string,
    merkleHashesHex: string,
    _txCountHex: string,
  ): Promise<SubmittedBlockInfo> {
    if (merkleHashesHex.trim().length === 0) throw submitError("The list of merkle hashes can't be empty")
    const header = this.parse(() => parseBtcBlock(hexBytes(headerHex, 'the Bitcoin header')).header)
    const coinbase = this.parse(() => parseBtcTransaction(hexBytes(coinbaseHex, 'the coinbase')))
    const hashes = hashList(merkleHashesHex, 'merkleHashes')
    return this.process(header, coinbase, () => concat(...hashes.slice(1).map(reversed)))
  }

  private parse<T>(f: () => T): T {
    try {
      return f()
    } catch (err) {
      if (err instanceof MergedMiningSubmitError) throw err
      throw submitError(`Invalid Bitcoin data: ${(err as Error).message}`)
    }
  }

  private async process(
    header: Uint8Array,
    coinbase: Uint8Array,
    proof: () => Uint8Array,
  ): Promise<SubmittedBlockInfo> {
    const hash = this.parse(() => extractHashForMergedMining(coinbase))
    const work = this.waiting.peek(toKey(hash))
    if (!work) throw submitError(`Cannot publish block, could not find hash ${toHex(hash)} in the cache`)
    const mm: MergedMiningFields = {
      bitcoinMergedMiningHeader: header.slice(0, 80),
      bitcoinMergedMiningCoinbaseTransaction: this.parse(() => compressCoinbase(coinbase, true)),
      bitcoinMergedMiningMerkleProof: this.parse(proof),
    }
    const h = work.block.header
    const invalid = validateMergedMining(mm, work.hashForMergedMining, h.difficulty)
    if (invalid !== undefined) {
      const wouldBe = headerHash({ ...h, ...mm })
      throw submitError(
        `Invalid block supplied by miner: ${toHex(wouldBe)} ${toHex(work.hashForMergedMining)} ` +
          `at height ${h.number} (${invalid})`,
      )
    }
    let block
    try {
      block = await this.chain.submitWork(work, mm)
    } catch (err) {
      if (err instanceof StaleWorkError) {
        throw submitError(
          `Cannot publish block ${toHex(work.hashForMergedMining)}: ${err.message} (this node keeps no side chains)`,
        )
      }
      throw err
    }
    this.waiting.delete(toKey(hash))
    return { importResult: 'IMPORTED_BEST', blockHash: block.hash, blockNumber: block.header.number }
  }
}

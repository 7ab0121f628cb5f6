/**
 * RSKIP110 fork detection data of the next block from a running window of its ancestors' facts (the two
 * ForkDetectionDataCalculator needs: the last byte of a block's Bitcoin header hash, and its uncle count), so that
 * mining block N reads one block (N − 1, the one not seen yet) instead of 39 and hashes at most one Bitcoin header.
 *
 * What is kept: for each of the last {@link WINDOW} numbers up to the newest block seen, the block's hash, its uncle
 * count, and (for numbers that are multiples of 64, the only ones the commit-to-parents vector reads) the last byte
 * of its Bitcoin header hash. Nothing else: ~40 KB, the same whatever the chain length (no growth per block).
 *
 * Why it stays correct without being told of reverts, resets (src/chain/dev/rewind.ts), reopen (anvil_reset),
 * `--db` restarts or a replaced executor: the window only ever holds a run of blocks each the parent
 * of the next (checked by hash when added), and a block's facts are a function of its hash. Before use, the block
 * being mined's parent hash (or, without it, a read of block N − 1) is matched against the window: blocks are read
 * from N − 1 down, each checked to be the parent of the one above, until one whose hash the window holds at that
 * number. Everything below that block in the window is then its ancestry, i.e. canonical. After a rewind of k blocks
 * that costs k + 1 reads, after a revert deeper than the window covers (or on a chain it has not seen) up to 448
 * reads, once. Each chain holds its own window (one chain's mining never invalidates another's).
 */
import { calculateForkDetectionData, btcBlockHash } from '../../rsk/merged-mining/merged-mining-hash.js'
import type { BlockRecord } from '../../types/records.js'

/** How many numbers the window spans (blocks; a power of two ≥ 449, room for rewinds of up to ~570 blocks). */
export const WINDOW = 1024
const MASK = WINDOW - 1

/** Canonical block lookup by number (the block store's byNumber). */
export type BlockLookup = (n: bigint) => Promise<BlockRecord | undefined>

/** The facts of one block the calculator needs. */
interface Facts {
  number: number
  hash: Uint8Array
  uncles: number
  /** Last byte of the Bitcoin header hash; -1 when the number is not a multiple of 64 (never read). */
  btcLast: number
}

function factsOf(b: BlockRecord, number: number): Facts {
  const btc = number % 64 === 0 ? btcBlockHash(b.header.bitcoinMergedMiningHeader).at(-1)! : -1
  return { number, hash: b.hash, uncles: b.header.uncleCount, btcLast: btc }
}

function hashesEqual(a: Uint8Array, aOff: number, b: Uint8Array): boolean {
  if (b.length !== 32) return false
  for (let i = 0; i < 32; i++) if (a[aOff + i] !== b[i]) return false
  return true
}

/**
 * One chain's window (src/chain/mining/block-builder.ts holds it; its calls run in the chain's queue). The checks
 * by hash above keep it correct whatever the chain did meanwhile; a call that finds the window changed by another
 * call while it awaited reads answers from its reads alone.
 */
export class ForkDetectionWindow {
  private readonly hashes = new Uint8Array(WINDOW * 32)
  private readonly uncles = new Int32Array(WINDOW)
  private readonly btcLast = new Int16Array(WINDOW)
  /** Newest number held (-1: empty) and how many consecutive numbers up to it are held. */
  private top = -1
  private size = 0
  /** Bumped on every change, so that a call that awaited reads sees whether another call changed the window. */
  private version = 0

  private holds(n: number, hash: Uint8Array | undefined): boolean {
    const { top, size } = this
    return hash !== undefined && n <= top && n > top - size && hashesEqual(this.hashes, (n & MASK) * 32, hash)
  }

  /**
   * RSKIP110 fork detection data of the block to be mined at `number` (ForkDetectionDataCalculator over the parent
   * and its 448 ancestors; the same bytes as calculateForkDetectionData in src/rsk/merged-mining/merged-mining-hash.ts
   * over those headers): 7 B last bytes of the Bitcoin header hashes of blocks (best − best mod 64) − 64·i, 1 B
   * uncle count of the 32 newest blocks (capped at 255), 4 B big-endian `number`. Empty when a needed ancestor is
   * not in the chain (a fork's blocks below its fork block), as the reference's calculator; the caller answers
   * empty below block 449 (src/chain/mining/consensus.ts).
   * @param number the number of the block being mined (N)
   * @param block canonical block lookup
   * @param parentHash the hash of block N − 1 when known (the header being mined's parentHash): saves a read when
   *   the window already holds it
   * @returns 12 bytes, or 0 bytes
   */
  async data(number: bigint, block: BlockLookup, parentHash?: Uint8Array): Promise<Uint8Array> {
    const best = Number(number - 1n)
    const lowest = best - (best % 64) - 6 * 64
    const start = this.version
    // read from the parent down until a block the window holds at its number (each read checked to be the parent
    // of the one above); the window must also reach down to `lowest`, or it is rebuilt from the reads
    const fresh: Facts[] = []
    let expect = parentHash
    let n = best
    for (; n >= lowest; n--) {
      if (this.holds(n, expect) && this.top - this.size + 1 <= lowest) break
      const b = await block(BigInt(n))
      if (b === undefined) return calculateForkDetectionData([])
      if (expect !== undefined && !hashesEqual(b.hash, 0, expect)) return fromReads(number, block)
      fresh.push(factsOf(b, n))
      expect = b.header.parentHash
    }
    // another call changed the window while this one read: answer from reads alone, leave the window to it
    if (this.version !== start) return fromReads(number, block)
    if (n >= lowest) {
      // the window holds block n: drop what it holds above (another branch), add the blocks read on top
      this.size -= this.top - n
      this.top = n
    } else {
      this.size = 0
      this.top = n
    }
    for (let i = fresh.length - 1; i >= 0; i--) {
      const f = fresh[i]!
      const slot = f.number & MASK
      this.hashes.set(f.hash, slot * 32)
      this.uncles[slot] = f.uncles
      this.btcLast[slot] = f.btcLast
      this.top = f.number
      if (this.size < WINDOW) this.size++
    }
    this.version++
    const out = new Uint8Array(12)
    for (let i = 0; i < 7; i++) out[i] = this.btcLast[(best - (best % 64) - i * 64) & MASK]!
    let sum = 0
    for (let i = 0; i < 32; i++) sum += this.uncles[(best - i) & MASK]!
    out[7] = Math.min(sum, 255)
    new DataView(out.buffer).setInt32(8, Number(BigInt.asIntN(32, number)), false)
    return out
  }
}

/** The same data from reads alone (ForkDetectionDataCalculator's 7 + 32 blocks), without the window. */
export async function fromReads(number: bigint, block: BlockLookup): Promise<Uint8Array> {
  const best = number - 1n
  const out = new Uint8Array(12)
  const offset = best % 64n
  for (let i = 0; i < 7; i++) {
    const b = await block(best - offset - BigInt(i * 64))
    if (!b) return calculateForkDetectionData([])
    out[i] = btcBlockHash(b.header.bitcoinMergedMiningHeader).at(-1)!
  }
  let count = 0
  for (let i = 0n; i < 32n; i++) count += (await block(best - i))?.header.uncleCount ?? 0
  out[7] = Math.min(count, 255)
  new DataView(out.buffer).setInt32(8, Number(BigInt.asIntN(32, number)), false)
  return out
}

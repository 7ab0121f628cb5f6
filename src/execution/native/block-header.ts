/**
 * The BlockHeader native contract at 0x0000000000000000000000000000000001000010 (RSKIP119; getCumulativeWork and
 * getDifficultyWithUncles with RSKIP536; all active from block 0 on regtest). rskj J/co/rsk/pcc/blockheader/
 * BlockHeaderContract.java, BlockHeaderContractMethod.java, BlockAccessor.java and one file per getter.
 *
 * Every method takes `int256 blockDepth` and returns `bytes`. Depth 0 is the parent of the block the code runs
 * in (BlockAccessor: `getBlockAtDepthStartingAt(depth, executionBlock.parentHash)`), depth 1 its parent, … up to
 * 3 999 (MAX_DEPTH 4 000). Gas: 4 000 + 2 per byte of call data.
 * - a depth outside the Java `short` range, ≥ 4 000, or before the genesis: empty bytes;
 * - a negative depth: the call fails ("Invalid block depth");
 * - getUncleCoinbaseAddress(depth, index): a negative index fails; an index past the uncle list: empty bytes.
 * Numbers come as Java `BigInteger.toByteArray()` (minimal two's complement: 0 → 0x00, 10 000 000 →
 * 0x00989680); the gas limit as the header stores it (the genesis' without leading zeros).
 *
 * Where node-cli differs: a block mined without merged mining (instant mining) has no Bitcoin header or
 * coinbase transaction; getBitcoinHeader answers empty bytes for it and getMergedMiningTags empty bytes (the
 * reference's miner always merge-mines). The local chain has no uncles.
 */
import type { BlockRecord } from '../../types/records.js'
import { RSK_TAG } from '../../rsk/merged-mining/merged-mining-hash.js'
import { bigIntToBytes } from '../../util/bytes.js'
import { encodeBytes, type ArgReader } from './abi.js'
import { dataGas, NativeContractError, type NativeCall, type NativeMethod } from './native-contract.js'

/** Address of the BlockHeader contract (rskj PrecompiledContracts.BLOCK_HEADER_ADDR_STR). */
export const BLOCK_HEADER_ADDRESS = '0x0000000000000000000000000000000001000010'

/** BlockHeaderContract.MAX_DEPTH. */
export const MAX_BLOCK_DEPTH = 4000n

const SHORT_MIN = -32768n
const SHORT_MAX = 32767n

/** Java `BigInteger.toByteArray()` of a non-negative value: minimal big-endian, sign byte when the top bit is set. */
export function javaBytes(value: bigint): Uint8Array {
  if (value === 0n) return Uint8Array.of(0)
  const b = bigIntToBytes(value)
  if (b[0]! & 0x80) {
    const out = new Uint8Array(b.length + 1)
    out.set(b, 1)
    return out
  }
  return b
}

/** Arguments of a getter: the depth, and the uncle index for getUncleCoinbaseAddress. */
interface DepthArgs {
  depth: bigint
  index: bigint
}

const decodeDepth = (r: ArgReader): DepthArgs => ({ depth: r.int(0), index: 0n })
const decodeDepthIndex = (r: ArgReader): DepthArgs => ({ depth: r.int(0), index: r.int(1) })
const headerGas = (_a: DepthArgs, data: Uint8Array): bigint => 4000n + dataGas(data)

/**
 * The block at `depth` below the executing block's parent (BlockHeaderContractMethod.execute + BlockAccessor).
 * @returns the block, or undefined for "empty bytes"
 * @throws NativeContractError for a negative depth
 */
async function blockAt(call: NativeCall<DepthArgs>): Promise<BlockRecord | undefined> {
  const { depth } = call.args
  if (depth < SHORT_MIN || depth > SHORT_MAX) return undefined
  if (depth < 0n) throw new NativeContractError(`Invalid block depth '${depth}' (should be a non-negative value)`)
  if (depth >= MAX_BLOCK_DEPTH) return undefined
  const n = call.host.executionBlockNumber() - 1n - depth
  return n < 0n ? undefined : call.host.canonicalBlock(n)
}

/** A `getter(int256) returns (bytes)` method reading one field of the block at the given depth. */
function getter(
  name: string,
  read: (b: BlockRecord, call: NativeCall<DepthArgs>) => Uint8Array,
  activation?: string,
): NativeMethod<DepthArgs> {
  return {
    signature: `${name}(int256)`,
    decode: decodeDepth,
    gas: headerGas,
    activation,
    execute: async (call) => {
      const b = await blockAt(call)
      return encodeBytes(b === undefined ? new Uint8Array(0) : read(b, call))
    },
  }
}

/**
 * GetMergedMiningTags: what follows the last "RSKBLOCK:" tag and the 32-byte hash in the coinbase transaction
 * (empty when there is no tag). @throws NativeContractError when the data ends less than 32 bytes after the tag
 */
export function mergedMiningTags(coinbaseTx: Uint8Array): Uint8Array {
  outer: for (let i = coinbaseTx.length - RSK_TAG.length; i >= 0; i--) {
    for (let j = 0; j < RSK_TAG.length; j++) if (coinbaseTx[i + j] !== RSK_TAG[j]) continue outer
    const start = i + RSK_TAG.length + 32
    // (Arrays.copyOfRange past the end throws: the call fails)
    if (start > coinbaseTx.length) throw new NativeContractError('merged-mining coinbase ends inside the tag')
    return coinbaseTx.slice(start)
  }
  return new Uint8Array(0)
}

const getUncleCoinbaseAddress: NativeMethod<DepthArgs> = {
  signature: 'getUncleCoinbaseAddress(int256,int256)',
  decode: decodeDepthIndex,
  gas: headerGas,
  execute: async (call) => {
    const b = await blockAt(call)
    const { index } = call.args
    if (b === undefined || index < SHORT_MIN || index > SHORT_MAX) return encodeBytes(new Uint8Array(0))
    if (index < 0n) throw new NativeContractError(`Invalid uncle index '${index}' (should be a non-negative value)`)
    const uncle = b.uncles[Number(index)]
    return encodeBytes(uncle === undefined ? new Uint8Array(0) : uncle.header.coinbase)
  },
}

/** The BlockHeader contract's methods, in rskj's order. */
export const blockHeaderMethods: NativeMethod<any>[] = [
  getter('getCoinbaseAddress', (b) => b.header.coinbase),
  getter('getBlockHash', (b) => b.hash),
  getter('getMergedMiningTags', (b) => mergedMiningTags(b.header.bitcoinMergedMiningCoinbaseTransaction)),
  getter('getMinGasPrice', (b) => javaBytes(b.header.minimumGasPrice)),
  getter('getGasLimit', (b) => b.header.rawGasLimit ?? javaBytes(b.header.gasLimit)),
  getter('getGasUsed', (b) => javaBytes(b.header.gasUsed)),
  getter('getDifficulty', (b) => javaBytes(b.header.difficulty)),
  getter('getBitcoinHeader', (b) => b.header.bitcoinMergedMiningHeader),
  getUncleCoinbaseAddress,
  // (no such methods before RSKIP536: GetDifficultyWithUncles.isEnabled, GetCumulativeWork.isEnabled)
  getter('getDifficultyWithUncles', (b) => javaBytes(b.cumulativeDifficulty), 'rskip536'),
  getter('getCumulativeWork', (b) => javaBytes(b.totalDifficulty), 'rskip536'),
]

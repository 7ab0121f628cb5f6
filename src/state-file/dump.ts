/**
 * Writing a state file (format: ./format.ts): the text is produced piece by piece from a consistent capture of
 * the chain (a Unitrie is immutable, so a captured live state stays as it was while the chain goes on), written
 * to a temporary file that is renamed over the target only once complete and synced — a dump interrupted by
 * SIGINT or kill -9 leaves the previous file, never a truncated one.
 */
import { randomBytes } from 'node:crypto'
import { open, rename, rm } from 'node:fs/promises'
import { gzipSync } from 'node:zlib'
import type { EncodedBlock } from '../chain/block-codec.js'
import type { BlockRecord } from '../types/records.js'
import type { Unitrie } from '../rsk/unitrie.js'
import { toHex, toKey } from '../util/bytes.js'
import { groupAccounts, type StateAccount } from './accounts.js'
import { STATE_FILE_VERSION, type NodeCliMeta } from './format.js'

/** What a dump is made of, captured at one moment (see Chain.captureState). */
export interface DumpSource {
  network: number
  chainId: number
  genesisHash: Uint8Array
  /** The live state (the head's, or after in-place changes). */
  state: Unitrie
  /** Blocks 1 … head in order, encoded (the genesis is rebuilt from the configuration). */
  blocks: readonly EncodedBlock[]
  /** The head block (the genesis when no block was mined). */
  head: BlockRecord
}

const hex = (n: bigint): string => '0x' + n.toString(16)
const word = (b: Uint8Array): string => '0x' + toKey(b).padStart(64, '0')

/** One account in Anvil's shape (nonce a JSON number, as Anvil writes it; exact as text at any size). */
function accountJson(a: StateAccount): string {
  let storage = ''
  for (const [slot, value] of a.storage) storage += (storage ? ',' : '') + `"${word(slot)}":"${word(value)}"`
  return (
    `{"nonce":${a.nonce.toString()},"balance":"${hex(a.balance)}",` +
    `"code":"${toHex(a.code)}","storage":{${storage}}}`
  )
}

/**
 * The state file's JSON text, in pieces (an account, a block, … at a time).
 * @param src the captured chain
 */
export function* stateFileText(src: DumpSource): Generator<string> {
  const h = src.head.header
  const block = {
    number: hex(h.number),
    beneficiary: toHex(h.coinbase),
    timestamp: hex(h.timestamp),
    gas_limit: Number(h.gasLimit),
    basefee: 0,
    difficulty: hex(h.difficulty),
    prevrandao: '0x' + '00'.repeat(32),
  }
  yield `{"block":${JSON.stringify(block)},"accounts":{`
  const raw: [Uint8Array, Uint8Array][] = []
  const storageBytes: StateAccount[] = []
  let first = true
  for (const item of groupAccounts(src.state)) {
    if ('raw' in item) {
      raw.push(item.raw)
      continue
    }
    const a = item.account
    if (a.storageBytes.length > 0) storageBytes.push({ ...a, storage: [], code: new Uint8Array(0) })
    yield `${first ? '' : ','}"${toHex(a.address)}":${accountJson(a)}`
    first = false
  }
  const meta: NodeCliMeta = {
    version: STATE_FILE_VERSION,
    network: src.network,
    chainId: src.chainId,
    genesisHash: toHex(src.genesisHash),
    stateRoot: toHex(src.state.hash()),
    head: hex(h.number),
    minimumGasPrice: hex(h.minimumGasPrice),
  }
  // Anvil requires best_block_number to name one of its `blocks`, which this file leaves empty: 0 (the head is
  // node_cli.head)
  yield `},"best_block_number":0,"blocks":[],"transactions":[],"historical_states":null,`
  yield `"node_cli":${JSON.stringify(meta).slice(0, -1)},"storageBytes":{`
  let firstCells = true
  for (const a of storageBytes) {
    const cells = a.storageBytes.map(([slot, bytes]) => `"${word(slot)}":"${toHex(bytes)}"`).join(',')
    yield `${firstCells ? '' : ','}"${toHex(a.address)}":{${cells}}`
    firstCells = false
  }
  yield `},"rawEntries":[${raw.map(([k, v]) => `["${toHex(k)}","${toHex(v)}"]`).join(',')}],"blocks":[`
  let firstBlock = true
  for (const b of src.blocks) {
    yield `${firstBlock ? '' : ','}["${toHex(b.rlp)}","${toHex(b.extra)}"]`
    firstBlock = false
  }
  yield ']}}\n'
}

/**
 * Writes the state file atomically: a temporary file next to `file`, synced, then renamed over it.
 * @param file target path
 * @param src the captured chain
 * @throws (rejects) the file-system error (the target is then unchanged)
 */
export async function writeStateFile(file: string, src: DumpSource): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  const handle = await open(tmp, 'w', 0o600)
  try {
    let buffered = ''
    for (const piece of stateFileText(src)) {
      buffered += piece
      if (buffered.length >= 1 << 20) {
        await handle.write(buffered)
        buffered = ''
      }
    }
    await handle.write(buffered)
    await handle.sync()
    await handle.close()
    await rename(tmp, file)
  } catch (err) {
    await handle.close().catch(() => undefined)
    await rm(tmp, { force: true })
    throw err
  }
}

/**
 * anvil_dumpState's answer: the state file, gzipped, as 0x-hex (what Anvil returns).
 * @param src the captured chain
 */
export function stateFileGzipHex(src: DumpSource): string {
  return '0x' + gzipSync(Buffer.from([...stateFileText(src)].join(''), 'utf8')).toString('hex')
}

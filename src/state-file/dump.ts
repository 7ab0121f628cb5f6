/**
 * Writing a state file (format: ./format.ts): the text is produced piece by piece from a consistent capture of
 * the chain (a Unitrie is immutable, so a captured live state stays as it was while the chain goes on), written
 * to a temporary file that is renamed over the target only once complete and synced — a dump interrupted by
 * SIGINT or kill -9 leaves the previous file, never a truncated one.
 */
import { randomBytes } from 'node:crypto'
import { open, rename, rm } from 'node:fs/promises'
import { gzipSync } from 'node:zlib'
import type { EncodedBlock } from '../blocks/block-codec.js'
import type { BlockRecord } from '../types/records.js'
import type { Unitrie } from '../unitrie/unitrie.js'
import { toHex, toKey } from '../util/bytes.js'
import { throttleProgress, type ProgressListener } from '../util/progress.js'
import { writeAccounts, type DumpRest, type DumpTally } from './accounts.js'
import { STATE_FILE_VERSION, type NodeCliMeta } from './format.js'
import { JsonBytes } from './json-bytes.js'

/** What a dump is made of, captured at one moment (see Chain.captureState). */
export interface DumpSource {
  network: number
  chainId: number
  genesisHash: Uint8Array
  /** The live state (the head's, or after in-place changes). */
  state: Unitrie
  /**
   * Blocks 1 … head in order, encoded (the genesis is rebuilt from the configuration), with their address-index
   * records (src/blocks/address-index-record.ts) when the chain has them.
   */
  blocks: readonly (EncodedBlock & { addresses?: Uint8Array })[]
  /** The head block (the genesis when no block was mined). */
  head: BlockRecord
}

const hex = (n: bigint): string => '0x' + n.toString(16)
const word = (b: Uint8Array): string => '0x' + toKey(b).padStart(64, '0')

/**
 * The state file's JSON text, as UTF-8 chunks of about a MiB (see ./json-bytes.ts).
 * @param src the captured chain
 * @param tally counts the accounts and storage cells written so far, when given
 */
export function* stateFileChunks(src: DumpSource, tally?: DumpTally): Generator<Uint8Array> {
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
  const out = new JsonBytes()
  out.text(`{"block":${JSON.stringify(block)},"accounts":{`)
  const rest: DumpRest = { raw: [], byteCells: [] }
  for (const _ of writeAccounts(src.state, out, rest, tally)) if (out.full) yield out.take()
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
  out.text(`},"best_block_number":0,"blocks":[],"transactions":[],"historical_states":null,`)
  out.text(`"node_cli":${JSON.stringify(meta).slice(0, -1)},"storageBytes":{`)
  let firstCells = true
  for (const { address, cells } of rest.byteCells) {
    const text = cells.map(([slot, bytes]) => `"${word(slot)}":"${toHex(bytes)}"`).join(',')
    out.text(`${firstCells ? '' : ','}"${toHex(address)}":{${text}}`)
    firstCells = false
  }
  out.text(`},"rawEntries":[`)
  let firstRaw = true
  for (const [k, v] of rest.raw) {
    out
      .text(firstRaw ? '[' : ',[')
      .quotedHex(k)
      .text(',')
      .quotedHex(v)
      .text(']')
    firstRaw = false
    if (out.full) yield out.take()
  }
  out.text('],"blocks":[')
  let firstBlock = true
  for (const b of src.blocks) {
    out
      .text(firstBlock ? '[' : ',[')
      .quotedHex(b.rlp)
      .text(',')
      .quotedHex(b.derived)
      .text(b.addresses === undefined ? ']' : ',')
    if (b.addresses !== undefined) out.quotedHex(b.addresses).text(']')
    firstBlock = false
    if (out.full) yield out.take()
  }
  out.text(']}}\n')
  yield out.take()
}

/**
 * Writes the state file atomically: a temporary file next to `file`, synced, then renamed over it.
 * @param file target path
 * @param src the captured chain
 * @param onProgress receives the `writing` step after each chunk (about a MiB) written, throttled: bytes written
 *   (no total: the size is known only at the end), with the accounts and cells written; then `syncing`
 * @throws (rejects) the file-system error (the target is then unchanged)
 */
export async function writeStateFile(file: string, src: DumpSource, onProgress?: ProgressListener): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  const handle = await open(tmp, 'w', 0o600)
  const report = onProgress && throttleProgress(onProgress)
  const tally: DumpTally | undefined = report && { accounts: 0, cells: 0 }
  let written = 0
  try {
    for (const chunk of stateFileChunks(src, tally)) {
      await handle.write(chunk)
      written += chunk.length
      report?.({ phase: 'writing', done: written, unit: 'bytes', counts: { ...tally! } })
    }
    report?.({ phase: 'syncing', done: written, unit: 'bytes', counts: { ...tally! } })
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
  return '0x' + gzipSync(Buffer.concat([...stateFileChunks(src)])).toString('hex')
}

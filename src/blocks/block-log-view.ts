/**
 * The logs of a stored block read from its encodings without decoding the block (docs/architecture.md#storage):
 * what eth_getLogs needs of a block that is not in the block store's decoded cache. The header is not decoded,
 * no transaction object is built, a transaction's hash is computed only when asked, and a receipt is decoded only
 * when its bloom may match the query — a scan over many blocks then costs a fraction of decoding them.
 */
import { keccak256 } from '../crypto/keccak.js'
import { listItems, wholeItem } from '../util/rlp-views.js'
import { blockLogsBloom, readDerived, readStored } from './block-codec.js'
import { StorageCorruptError } from '../errors/storage-errors.js'
import { receiptLogs } from './stored-block.js'
import type { LogBlock, LogRecord, LogTx } from '../types/records.js'

/** The 256-byte bloom of a receipt RLP, read in place (item 2 of the receipt list; a view into `receipt`). */
function receiptBloom(receipt: Uint8Array): Uint8Array {
  const bloom = listItems(receipt, wholeItem(receipt))[2]
  if (bloom === undefined || bloom.list || bloom.end - bloom.data !== 256)
    throw new Error('a receipt has no logs bloom')
  return receipt.subarray(bloom.data, bloom.end)
}

/** The raw RLP of each transaction of a block RLP (views into `rlp`). */
function transactionItems(rlp: Uint8Array): Uint8Array[] {
  const txList = listItems(rlp, wholeItem(rlp))[1]
  if (txList === undefined) throw new Error('a block has no transaction list')
  return listItems(rlp, txList).map((tx) => rlp.subarray(tx.start, tx.end))
}

const ZERO_BLOOM: Uint8Array = new Uint8Array(256)

/**
 * A block's logs as a {@link LogBlock}, decoded from its encodings (src/blocks/block-codec.ts).
 * @param number the block number; @param rlp its block RLP; @param derived its derived RLP (both owned by the caller
 *   for as long as the view is used)
 * @param receiptMayMatch when given, receipts whose bloom it rules out are not decoded (their logs read as empty);
 *   without it every receipt is decoded
 * @throws StorageCorruptError when the encodings do not have the block shape
 */
export function decodeLogView(
  number: bigint,
  rlp: Uint8Array,
  derived: Uint8Array,
  receiptMayMatch?: (bloom: Uint8Array) => boolean,
): LogBlock {
  const [{ hash, txs: txEntries }, items] = readStored(`block ${number}: the stored block`, () => {
    const read = readDerived(derived)
    if (read.hash.length !== 32) throw new Error('the block hash is not 32 bytes')
    return [read, transactionItems(rlp)] as const
  })
  if (items.length !== txEntries.length)
    throw new StorageCorruptError(`block ${number}: receipts do not match the transactions`)
  const transactions = txEntries.map(({ receipt: receiptRlp, firstLogIndex }, index): LogTx => {
    let logs: LogRecord[] = []
    let logsBloom = ZERO_BLOOM
    // an empty receipt: dropped by --transaction-block-keeper
    if (receiptRlp.length > 0) {
      readStored(`block ${number}: a stored receipt`, () => {
        logsBloom = receiptBloom(receiptRlp)
        if (receiptMayMatch === undefined || receiptMayMatch(logsBloom)) {
          logs = receiptLogs(receiptRlp, firstLogIndex)
        }
      })
    }
    let txHash: Uint8Array | undefined
    return {
      get hash(): Uint8Array {
        txHash ??= keccak256(items[index]!)
        return txHash
      },
      index,
      receipt: { logs, logsBloom },
    }
  })
  return { hash: hash.slice(), header: { number, logsBloom: blockLogsBloom(rlp) }, transactions }
}

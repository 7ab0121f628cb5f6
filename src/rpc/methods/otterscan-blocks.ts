/**
 * The Otterscan connect probe and block pages (docs/otterscan.md): `erigon_getHeaderByNumber`, `ots_getApiLevel`,
 * `ots_hasCode`, `ots_getBlockDetails`, `ots_getBlockDetailsByHash` and `ots_getBlockTransactions`, with the
 * shapes Erigon's rpcdaemon answers (erigon turbo/jsonrpc erigon_block.go, otterscan_api.go,
 * otterscan_block_details.go, otterscan_has_code.go) and the fields of this node's own block JSON
 * (src/rpc/format.ts), so a block reads the same here as from eth_getBlockByNumber.
 */
import type { BlockRecord, TxRecord } from '../../types/records.js'
import { quantity, toHex } from '../../util/bytes.js'
import { listedTransactions } from '../compat.js'
import { formatBlock, formatReceipt } from '../format.js'
import { method, type MethodSpec } from '../method-table.js'
import { P, type BlockRef } from '../params.js'
import { ErrorCode, RpcError } from '../rpc-error.js'
import { blockOrPending, requireBlock, type Services } from '../services.js'

/** The Otterscan API level served: Otterscan 2.x refuses a node below 8 (its MIN_API_LEVEL). */
export const OTS_API_LEVEL = 8

/**
 * Largest `pageNumber` / `pageSize` of ots_getBlockTransactions: Erigon declares both as uint8, so a larger value
 * fails its parameter decoding (-32602); this node keeps the same bound. The Otterscan UI sends pageSize 25.
 */
export const OTS_MAX_PAGE = 255n

/** The keys of a header as Erigon (and geth) marshal one, in their order; no baseFeePerGas on this chain. */
const HEADER_KEYS = [
  'parentHash',
  'sha3Uncles',
  'miner',
  'stateRoot',
  'transactionsRoot',
  'receiptsRoot',
  'logsBloom',
  'difficulty',
  'number',
  'gasLimit',
  'gasUsed',
  'timestamp',
  'extraData',
  'mixHash',
  'nonce',
  'hash',
] as const

/** Transaction input is cut to this many bytes in ots_getBlockTransactions (Erigon: the 4-byte selector). */
const SELECTOR_BYTES = 4

/**
 * The header JSON of erigon_getHeaderByNumber: {@link HEADER_KEYS} taken from this node's block JSON, so every
 * value equals eth_getBlockByNumber's.
 */
function formatHeader(block: BlockRecord, pending: boolean): Record<string, unknown> {
  const full = formatBlock(block, false, pending, [])
  return Object.fromEntries(HEADER_KEYS.map((k) => [k, full[k]]))
}

/**
 * `ots_getBlockDetails`' `block`: the block JSON without `transactions`, with `transactionCount`, and `logsBloom`
 * null (Erigon drops the bloom from this answer to keep it small).
 */
function detailsBlock(block: BlockRecord, pending: boolean, txs: readonly TxRecord[]): Record<string, unknown> {
  const { transactions: _omitted, ...rest } = formatBlock(block, false, pending, txs)
  return { ...rest, transactionCount: txs.length, logsBloom: null }
}

/**
 * `{ block, issuance, totalFees }` of a block (docs/otterscan.md#what-the-numbers-mean-here): this chain mints
 * nothing per block (no block or uncle reward; the miner is paid later by Remasc out of fees), so every issuance
 * figure is 0x0; totalFees is the header's `paidFees` (Σ gasUsed × gasPrice of its transactions, the Remasc
 * transaction's price being 0), which the block keeps even when `--transaction-block-keeper` dropped the receipts.
 */
function blockDetails(block: BlockRecord, pending: boolean, txs: readonly TxRecord[]): Record<string, unknown> {
  return {
    block: detailsBlock(block, pending, txs),
    issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' },
    totalFees: quantity(block.header.paidFees),
  }
}

/**
 * One page of a block's transactions counted from its end, as Erigon cuts it: page 0 is the last `pageSize`
 * transactions, page 1 the `pageSize` before them…; a page past the start is empty, the first page may be short.
 * @returns the [start, end) indexes into the block's transaction list
 */
function pageFromEnd(count: number, pageNumber: number, pageSize: number): [number, number] {
  const end = Math.max(count - pageNumber * pageSize, 0)
  return [Math.max(end - pageSize, 0), end]
}

/** The Otterscan block methods. */
export function otterscanBlockMethods(s: Services): MethodSpec[] {
  const { chain } = s
  /** The block a number or tag names (the built pending block for `pending`), or undefined when unknown. */
  const blockAt = async (ref: BlockRef): Promise<{ block: BlockRecord; pending: boolean } | undefined> => {
    const block = await blockOrPending(chain, ref)
    return block && { block, pending: ref.kind === 'tag' && ref.tag === 'pending' }
  }

  return [
    method(
      'erigon_getHeaderByNumber',
      'erigon',
      "a block's header (Erigon's header JSON); Otterscan's connect probe",
      [P.blockNoHash('block')],
      async (_c, ref) => {
        const found = await blockAt(ref)
        if (!found) {
          const id = ref.kind === 'number' ? ref.number.toString() : ref.kind === 'tag' ? ref.tag : toHex(ref.hash)
          // Erigon answers an unknown number with an error, not null
          throw new RpcError(ErrorCode.Server, `block header not found: ${id}`)
        }
        return formatHeader(found.block, found.pending)
      },
    ),
    method('ots_getApiLevel', 'ots', 'the Otterscan API level served (8)', [], () => OTS_API_LEVEL),
    method(
      'ots_hasCode',
      'ots',
      'whether an address holds code at a block',
      [P.address(), P.block('block')],
      async (_c, address, ref) => (await chain.reads.code(address, await requireBlock(chain, ref))).length > 0,
    ),
    method(
      'ots_getBlockDetails',
      'ots',
      'block without transaction bodies, transactionCount, issuance (0) and total fees; null when unknown',
      [P.blockNoHash('block')],
      async (_c, ref) => {
        const found = await blockAt(ref)
        if (!found) return null
        return blockDetails(found.block, found.pending, listedTransactions(found.block, s.compat))
      },
    ),
    method(
      'ots_getBlockDetailsByHash',
      'ots',
      'ots_getBlockDetails by block hash; null when unknown',
      [P.hash('blockHash')],
      async (_c, hash) => {
        const b = await chain.reads.blockByHash(hash)
        return b ? blockDetails(b, false, listedTransactions(b, s.compat)) : null
      },
    ),
    method(
      'ots_getBlockTransactions',
      'ots',
      "a page of a block's full transactions and receipts, counted from the block's end; null when unknown",
      [
        P.blockNoHash('block'),
        P.quantityAtMost('pageNumber', OTS_MAX_PAGE),
        P.quantityAtMost('pageSize', OTS_MAX_PAGE),
      ],
      async (_c, ref, pageNumber, pageSize) => {
        const found = await blockAt(ref)
        if (!found) return null
        const { block, pending } = found
        const txs = listedTransactions(block, s.compat)
        const [start, end] = pageFromEnd(txs.length, Number(pageNumber), Number(pageSize))
        const page = txs.slice(start, end)
        const fullblock = formatBlock(block, true, pending, page)
        for (const t of fullblock.transactions as Record<string, unknown>[]) {
          const input = t.input as string
          if (input.length > 2 + 2 * SELECTOR_BYTES) t.input = input.slice(0, 2 + 2 * SELECTOR_BYTES)
        }
        const receipts = page.map((t) => ({ ...formatReceipt(t, block), logs: null, logsBloom: null }))
        return { fullblock: { ...fullblock, transactionCount: txs.length, logsBloom: null }, receipts }
      },
    ),
  ]
}

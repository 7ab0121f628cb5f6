/**
 * Otterscan's address pages (API level 8; github:otterscan/otterscan docs/custom-jsonrpc.md, served as Erigon
 * serves them: rpc/jsonrpc/otterscan_search_v3.go, otterscan_contract_creator.go,
 * otterscan_transaction_by_sender_and_nonce.go in github:erigontech/erigon): `ots_searchTransactionsBefore`,
 * `ots_searchTransactionsAfter`, `ots_getContractCreator` and `ots_getTransactionBySenderAndNonce`. Every answer
 * comes from the address index (src/blocks/address-index.ts, kept by src/chain/address-history.ts) and reads only
 * the blocks it names: no chain scan.
 *
 * What the index holds (docs/otterscan.md#address-history): the mined blocks of this node. A fork's blocks at or
 * below the fork block are the remote's and are not indexed (their transactions are not found; a remote contract
 * has no known creator); with `--transaction-block-keeper` the searches leave out the blocks whose receipts were
 * dropped (the answer needs them), while the creator and sender-nonce lookups, which need only the transaction,
 * still find them.
 */
import type { Chain } from '../../chain/chain.js'
import type { SearchPage } from '../../blocks/address-index.js'
import { txPositionIndex, txPositionNumber } from '../../blocks/tx-position-key.js'
import type { BlockRecord } from '../../types/records.js'
import { quantity, toHex } from '../../util/bytes.js'
import { listedTransactions } from '../compat.js'
import { formatReceipt, formatTransaction } from '../format.js'
import { method, type MethodSpec } from '../method-table.js'
import { P } from '../params.js'
import type { Services } from '../services.js'

/**
 * Largest `pageSize` of the searches. Erigon takes any uint16; here a page is bounded so that one request cannot
 * hold the node for long (each transaction costs a block read and a receipt): the Otterscan UI sends 25.
 */
export const OTS_MAX_SEARCH_PAGE = 1000n

/**
 * A search page as Otterscan reads it: `txs` (transaction JSON), `receipts` (receipt JSON with the block's
 * `timestamp`), `firstPage`, `lastPage`; newest first. A position whose block is gone (a revert that raced the
 * read) or that a compatibility profile hides (the Remasc transaction) is left out.
 */
async function searchResult(s: Services, page: SearchPage): Promise<Record<string, unknown>> {
  const blocks = new Map<number, BlockRecord | undefined>()
  const txs: Record<string, unknown>[] = []
  const receipts: Record<string, unknown>[] = []
  for (const position of page.positions) {
    const n = txPositionNumber(position)
    if (!blocks.has(n)) blocks.set(n, await s.chain.reads.blockByNumber(BigInt(n)))
    const block = blocks.get(n)
    const t = block && listedTransactions(block, s.compat)[txPositionIndex(position)]
    if (block === undefined || t === undefined) continue
    txs.push(formatTransaction(t, block))
    receipts.push({ ...formatReceipt(t, block), timestamp: quantity(block.header.timestamp) })
  }
  return { txs, receipts, firstPage: page.firstPage, lastPage: page.lastPage }
}

/** The hash of the transaction at a packed position, or undefined when its block is gone. */
async function txHashAt(chain: Chain, position: number): Promise<Uint8Array | undefined> {
  const block = await chain.reads.blockByNumber(BigInt(txPositionNumber(position)))
  return block?.transactions[txPositionIndex(position)]?.hash
}

/** The Otterscan address-page methods. */
export function otterscanSearchMethods(s: Services): MethodSpec[] {
  const { chain } = s
  /** Blocks at or below it are left out of searches: their receipts were dropped (or they are a fork's remote's). */
  const floor = (): number => Number(chain.reads.receiptsPrunedUpTo)
  const pageSize = P.quantityAtMost('pageSize', OTS_MAX_SEARCH_PAGE)
  const blockNumber = P.quantityAtMost('blockNumber', BigInt(Number.MAX_SAFE_INTEGER))

  /** One of the two searches: the index's page in that direction, with its transactions and receipts. */
  const search = (name: string, direction: 'before' | 'after', summary: string): MethodSpec =>
    method(name, 'ots', summary, [P.address(), blockNumber, pageSize], async (_c, address, block, size) => {
      const index = await chain.addressIndex()
      return searchResult(s, index[direction](address, Number(block), Number(size), floor()))
    })

  return [
    search(
      'ots_searchTransactionsBefore',
      'before',
      "a page of an address's transactions in blocks before a block (0 = from the newest), newest first",
    ),
    search(
      'ots_searchTransactionsAfter',
      'after',
      "a page of an address's transactions in blocks after a block (0 = from the oldest), newest first",
    ),
    method(
      'ots_getContractCreator',
      'ots',
      "a contract's creating transaction and direct creator (a factory for an inner CREATE); null without code",
      [P.address()],
      async (_c, address) => {
        // Erigon's rule: an account without code at the head has no creator (also after a self-destruct)
        if ((await chain.reads.code(address, chain.reads.head)).length === 0) return null
        const creation = (await chain.addressIndex()).creation(address)
        const hash = creation && (await txHashAt(chain, creation.position))
        return hash ? { hash: toHex(hash), creator: toHex(creation!.creator) } : null
      },
    ),
    method(
      'ots_getTransactionBySenderAndNonce',
      'ots',
      'the hash of the mined transaction an account sent with a nonce; null when none',
      [P.address('sender'), P.quantityAtMost('nonce', (1n << 64n) - 1n)],
      async (_c, sender, nonce) => {
        const index = await chain.addressIndex()
        // inside the queue: the binary search reads blocks between its steps, and no block may be appended meanwhile
        const position = await chain.queue.run(() =>
          index.findSentByNonce(sender, nonce, async (p) => {
            const block = await chain.reads.blockByNumber(BigInt(txPositionNumber(p)))
            return block?.transactions[txPositionIndex(p)]?.tx.nonce ?? -1n
          }),
        )
        const hash = position === undefined ? undefined : await txHashAt(chain, position)
        return hash ? toHex(hash) : null
      },
    ),
  ]
}

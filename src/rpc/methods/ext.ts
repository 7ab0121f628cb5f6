/**
 * Chain-specific consensus-data methods (docs/reference-rules.md#rule-raw-header,
 * docs/reference-rules.md#rule-receipt-nodes, docs/reference-rules.md#rule-storage-bytes,
 * docs/reference-rules.md#rule-mnr-methods, docs/reference-rules.md#rule-get-proof; the reference's rsk_ module is
 * named ext_ here), the merged-mining methods (mnr_) and the eth_ mining/bridge/proof rows:
 * - ext_getRawBlockHeaderByHash / ByNumber: the uncompressed header RLP (BlockHeader.getEncoded(); for
 *   V1/V2 headers keccak(raw) ≠ block hash, the hash is over the compressed form);
 * - ext_getRawTransactionReceiptByHash: the reference receipt RLP;
 * - ext_getTransactionReceiptNodesByHash(blockHash, txHash): the receipts-trie Unitrie nodes of the receipt,
 *   leaf first, root last (RskModuleImpl); null when the transaction is not in that block;
 * - ext_getStorageBytesAt(address, key, block): a storage cell's raw bytes (may exceed 32 bytes), "0x0" when
 *   unset (Web3Impl.rsk_getStorageBytesAt);
 * - mnr_getWork / mnr_submitBitcoinBlock / …Transactions / …PartialMerkle
 *   (src/chain/merged-mining/merged-mining-work.ts; answers formatted by src/rpc/format.ts);
 * - eth_getWork: [hashForMergedMining, zero seed hash, target] — the spec's work array over the merged-mining
 *   work (the reference has no eth_getWork); eth_submitWork: always false (blocks are merge-mined: submit
 *   Bitcoin solutions with mnr_submitBitcoinBlock*; the reference throws "Not implemented");
 *   eth_submitHashrate: true, ignored (the reference throws);
 * - eth_bridgeState: {rskTxsWaitingForSignatures: [], btcBlockchainBestChainHeight: 0} (a fresh bridge);
 * - eth_getProof (spec shape; not in the reference): accountProof / storageProof are the Unitrie nodes on the
 *   path to the account / storage key, LEAF FIRST, ROOT LAST (as ext_getTransactionReceiptNodesByHash);
 *   for an absent key, the nodes down to where its path leaves the trie. keccak(last node) is the block's
 *   stateRoot. storageHash is the hash of the account's storage-root node (the node at the storage marker
 *   key; it covers the marker), the empty-trie hash without storage; codeHash is keccak(code) (keccak of
 *   empty for an account without code, zero hash for a missing account, as RSKIP169 getCodeHashStandard).
 */
import { ErrorCode, RpcError } from '../rpc-error.js'
import { MergedMiningWorkServer } from '../../chain/merged-mining/merged-mining-work.js'
import { encodeReceipt, toRskHeader } from '../../rsk/block-encoding.js'
import { keccak256 } from '../../crypto/secp256k1.js'
import { rawHeader } from '../../rsk/header.js'
import { EMPTY_TRIE_HASH } from '../../crypto/keccak.js'
import { receiptNodes } from '../../rsk/receipt-rlp.js'
import { accountKey, codeKey, decodeAccountState, storageKey, storagePrefixKey } from '../../rsk/trie-keys.js'
import { bytesToBits, type Unitrie } from '../../unitrie/unitrie.js'
import { targetBytes } from '../../rsk/merged-mining/merged-mining.js'
import { bytesEqual, padLeft, quantity, toHex, ZERO_HASH } from '../../util/bytes.js'
import { formatMinerWork, formatSubmittedBlockInfo } from '../format.js'
import { method, type MethodSpec } from '../method-table.js'
import { decodeData, param, P } from '../params.js'
import { blockOrPending, requireBlock, type Services } from '../services.js'

const KECCAK_EMPTY = keccak256(new Uint8Array(0))

/**
 * The messages of the Unitrie nodes on the path to `key`, leaf first, root last. For a key without a node
 * of its own, the nodes down to where the path leaves the trie (an exclusion proof). Empty for the empty trie.
 */
export function proofNodes(trie: Unitrie, key: Uint8Array): Uint8Array[] {
  const path = []
  let n = trie.root
  let k = bytesToBits(key)
  while (n) {
    path.push(n)
    let common = 0
    while (common < n.path.length && common < k.length && n.path[common] === k[common]) common++
    if (common < n.path.length || common === k.length) break
    const next = n.child(k[common]!)
    k = k.subarray(common + 1)
    n = next
  }
  return path.reverse().map((x) => x.message())
}

/** A hex string param (mnr_ arguments are plain strings in the reference). */
const str = (name: string) =>
  param(name, (v, i) => {
    if (typeof v !== 'string')
      throw new RpcError(ErrorCode.InvalidParams, `invalid argument ${i}: a string is expected`)
    return v
  })

/** ext_, mnr_ and the eth_ mining / bridge / proof methods. */
export function extMethods(s: Services): MethodSpec[] {
  const chain = s.chain
  const mining = new MergedMiningWorkServer(chain)

  return [
    method(
      'ext_getRawBlockHeaderByHash',
      'ext',
      'uncompressed header RLP, or null',
      [P.hash('blockHash')],
      async (_c, hash) => {
        const b = await chain.reads.blockByHash(hash)
        return b ? toHex(rawHeader(toRskHeader(b.header))) : null
      },
    ),
    method(
      'ext_getRawBlockHeaderByNumber',
      'ext',
      'uncompressed header RLP, or null',
      [P.block('blockNumber')],
      async (_c, ref) => {
        const b = await blockOrPending(chain, ref)
        return b ? toHex(rawHeader(toRskHeader(b.header))) : null
      },
    ),
    method(
      'ext_getRawTransactionReceiptByHash',
      'ext',
      'receipt RLP, or null',
      [P.hash('transactionHash')],
      async (_c, hash) => {
        const loc = await chain.reads.transaction(hash)
        return loc ? toHex(encodeReceipt(loc.tx.receipt)) : null
      },
    ),
    method(
      'ext_getTransactionReceiptNodesByHash',
      'ext',
      'receipts-trie nodes of a receipt (leaf first), or null',
      [P.hash('blockHash'), P.hash('transactionHash')],
      async (_c, blockHash, txHash) => {
        const b = await chain.reads.blockByHash(blockHash)
        if (!b) return null
        const i = b.transactions.findIndex((t) => bytesEqual(t.hash, txHash))
        if (i < 0) return null
        return (
          receiptNodes(
            b.transactions.map((t) => encodeReceipt(t.receipt)),
            i,
          ) ?? []
        ).map(toHex)
      },
    ),
    method(
      'ext_getStorageBytesAt',
      'ext',
      'raw bytes of a storage cell (may exceed 32 bytes)',
      [P.address(), param('key', decodeData), P.block()],
      async (_c, address, key, ref) => {
        if (key.length > 32)
          throw new RpcError(ErrorCode.InvalidParams, 'invalid argument 1: a storage key has at most 32 bytes')
        const bytes = await chain.reads.storageBytes(address, padLeft(key, 32), await requireBlock(chain, ref))
        return bytes.length === 0 ? '0x0' : toHex(bytes)
      },
    ),

    method('mnr_getWork', 'mnr', 'merged-mining work for the next block', [], async () =>
      formatMinerWork(await mining.getWork()),
    ),
    method(
      'mnr_submitBitcoinBlock',
      'mnr',
      'submit a Bitcoin block merge-mining the work',
      [str('bitcoinBlockHex')],
      async (_c, hex) => formatSubmittedBlockInfo(await mining.submitBitcoinBlock(hex)),
    ),
    method(
      'mnr_submitBitcoinBlockTransactions',
      'mnr',
      'submit a Bitcoin header, coinbase and transaction ids',
      [str('blockHashHex'), str('blockHeaderHex'), str('coinbaseHex'), str('txnHashesHex')],
      async (_c, hash, header, coinbase, txs) =>
        formatSubmittedBlockInfo(await mining.submitBitcoinBlockTransactions(hash, header, coinbase, txs)),
    ),
    method(
      'mnr_submitBitcoinBlockPartialMerkle',
      'mnr',
      'submit a Bitcoin header, coinbase and the coinbase merkle branch',
      [str('blockHashHex'), str('blockHeaderHex'), str('coinbaseHex'), str('merkleHashesHex'), str('blockTxnCountHex')],
      async (_c, hash, header, coinbase, hashes, count) =>
        formatSubmittedBlockInfo(await mining.submitBitcoinBlockPartialMerkle(hash, header, coinbase, hashes, count)),
    ),

    method('eth_getWork', 'eth', '[hashForMergedMining, seed hash, target] of the merged-mining work', [], async () => {
      const work = await mining.work()
      return [toHex(work.hashForMergedMining), toHex(ZERO_HASH), toHex(targetBytes(work.block.header.difficulty))]
    }),
    method(
      'eth_submitWork',
      'eth',
      'always false: blocks are merge-mined (use mnr_submitBitcoinBlock)',
      [param('nonce', decodeData), P.hash('powHash'), P.hash('mixDigest')],
      () => false,
    ),
    method(
      'eth_submitHashrate',
      'eth',
      'accepted and ignored',
      [param('hashrate', decodeData), param('id', decodeData)],
      () => true,
    ),
    method('eth_bridgeState', 'eth', 'bridge state summary', [], () => ({
      rskTxsWaitingForSignatures: [],
      btcBlockchainBestChainHeight: 0,
    })),
    method(
      'eth_getProof',
      'eth',
      'account and storage proofs (Unitrie nodes, leaf first)',
      [
        P.address(),
        param('storageKeys', (v, i) => {
          if (!Array.isArray(v))
            throw new RpcError(ErrorCode.InvalidParams, `invalid argument ${i}: an array of storage keys is expected`)
          return v.map((k) => P.slot().decode(k, i))
        }),
        P.block(),
      ],
      async (_c, address, keys, ref) => {
        // one immutable state, read through the chain's interface (the --state-history check included)
        const trie = await chain.reads.stateTrie(await requireBlock(chain, ref))
        const acctKey = accountKey(address)
        const stored = trie.get(acctKey)
        const exists = stored !== undefined && stored.length > 0
        const acct = exists ? decodeAccountState(stored) : { nonce: 0n, balance: 0n }
        const code = exists ? trie.getValueHash(codeKey(address)) : undefined
        const storageRoot = trie.findNode(storagePrefixKey(address))
        return {
          address: toHex(address),
          accountProof: proofNodes(trie, acctKey).map(toHex),
          balance: quantity(acct.balance),
          codeHash: toHex(!exists ? ZERO_HASH : (code ?? KECCAK_EMPTY)),
          nonce: quantity(acct.nonce),
          storageHash: toHex(storageRoot ? storageRoot.hash() : EMPTY_TRIE_HASH),
          storageProof: keys.map((slot) => {
            const stored = trie.get(storageKey(address, slot))
            return {
              key: toHex(slot),
              value: quantity(stored && stored.length > 0 ? BigInt(toHex(stored)) : 0n),
              proof: proofNodes(trie, storageKey(address, slot)).map(toHex),
            }
          }),
        }
      },
    ),
  ]
}

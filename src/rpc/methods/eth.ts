/**
 * eth_* methods: chain info, state reads, calls and gas, transactions and receipts, blocks, logs
 * (docs/reference-rules.md#rule-encoding; shapes per docs/reference-rules.md#rule-block-json …
 * docs/reference-rules.md#rule-log-json; errors per docs/reference-rules.md#rule-error-codes).
 */
import { createLegacyTxFromBytesArray, LegacyTx, type LegacyTxData } from '@ethereumjs/tx'
import { RLP } from '@ethereumjs/rlp'
import { Address } from '@ethereumjs/util'
import { ErrorCode, invalidParams, RpcError } from '../rpc-error.js'
import type { BlockRecord } from '../../types/records.js'
import { executionError } from '../../chain/queries/revert.js'
import { keccak256 } from '../../crypto/secp256k1.js'
import { impersonatedTransaction } from '../../accounts/impersonation.js'
import { pinKnownParts } from '../../execution/ethereumjs/index.js'
import { signLegacyTransaction, type LocalAccount } from '../../accounts/dev-accounts.js'
import { LockedAccountError, UnknownAccountError } from '../../errors/domain-errors.js'
import type { CallRequest } from '../../execution/executor.js'
import { queryLogs } from '../../events/log-query.js'
import { quantity, toHex } from '../../util/bytes.js'
import { formatBlock, formatReceipt, formatTransaction } from '../format.js'
import { logsJson } from '../log-json.js'
import { LEGACY_ONLY, method, type MethodSpec } from '../method-table.js'
import { listedTransactions } from '../compat.js'
import { LATEST, optional, P, type BlockRef } from '../params.js'
import { blockOrPending, requireBlock, resolveBlock, type Services } from '../services.js'
import { blockOverrideParam, stateOverrideParam } from '../override-params.js'

/** Protocol version the reference answers for eth_protocolVersion (docs/reference-rules.md#rule-node-info). */
export const PROTOCOL_VERSION = '0x3e'
/** Default gas of eth_sendTransaction (reference TransactionArgumentsUtil). */
export const DEFAULT_SEND_GAS = 90_000n

/** The EIP-2718 transaction types a client may send, by type byte (named in the refusal). */
const TYPED_TX_NAMES: Record<number, string> = { 1: 'EIP-2930', 2: 'EIP-1559', 3: 'EIP-4844', 4: 'EIP-7702' }

/**
 * Decodes a raw signed transaction: legacy only (exactly 9 RLP items), EIP-155 with this chain's id or
 * unprotected (v 27/28).
 * @throws RpcError -32602 "Invalid input: …" for anything else
 */
export function decodeRawTransaction(raw: Uint8Array, s: Services): LegacyTx {
  // an EIP-2718 typed transaction starts with its type byte (0x00-0x7f), a legacy one with an RLP list (≥ 0xc0)
  const first = raw[0]
  if (first !== undefined && first <= 0x7f) {
    const name = TYPED_TX_NAMES[first]
    throw invalidParams(
      `Invalid input: typed transaction (type 0x${first.toString(16).padStart(2, '0')}${name ? `, ${name}` : ''}) ` +
        `not supported: ${LEGACY_ONLY}`,
    )
  }
  let items: unknown
  try {
    items = RLP.decode(raw)
  } catch (err) {
    throw invalidParams(`Invalid input: ${(err as Error).message}`)
  }
  if (!Array.isArray(items) || items.length !== 9) {
    throw invalidParams(
      'Invalid input: a transaction must be a legacy RLP list of 9 items (typed transactions are not supported)',
    )
  }
  const vBytes = items[6] as Uint8Array
  if (!(vBytes instanceof Uint8Array) || vBytes.length !== 1) throw invalidParams('Invalid input: v must be one byte')
  const v = BigInt(vBytes[0]!)
  if (v !== 27n && v !== 28n) {
    const chainId = (v - 35n) / 2n
    if (v < 35n || chainId !== s.chain.reads.chainId) throw invalidParams(`Invalid chainId: ${chainId}`)
  }
  let tx: LegacyTx
  try {
    // the init-code limit is a pool rule in the reference (-32010, txpool/validation.ts), not a decoding error;
    // built unfrozen from the items already decoded, so the sender and encoding can be attached before freezing
    tx = createLegacyTxFromBytesArray(items as Uint8Array[], {
      common: s.chain.reads.common,
      allowUnlimitedInitCodeSize: true,
      freeze: false,
    })
    attachKnownParts(tx, raw)
  } catch (err) {
    throw invalidParams(`Invalid input: ${(err as Error).message.replace(/\s*\(tx type.*$/s, '')}`)
  }
  return tx
}

/**
 * Recovers the sender once and pins what is already known to the (still unfrozen) transaction, then freezes
 * it (src/execution/ethereumjs/transactions.ts): `getSenderAddress()` answers the recovered address
 * (@ethereumjs re-derives it with a pure-JS keccak on every call: pool validation, execution, receipts) and
 * `serialize()` answers the received bytes (the node otherwise re-encodes them for the hash, the transactions
 * trie, the block encoding and the pool's size rule). Together ≈3% of the server time per automined ERC-20
 * transfer (profiled; docs/architecture.md#performance-rules).
 * @throws Error "Invalid Signature" when the sender cannot be recovered
 */
function attachKnownParts(tx: LegacyTx, raw: Uint8Array): void {
  // (the public key is not kept in tx.cache: nothing reads it after this, and it cost 64 B + two objects per tx)
  const sender = new Address(keccak256(tx.getSenderPublicKey()).slice(12))
  pinKnownParts(tx, sender, raw)
}

/**
 * The legacy transaction fields for `obj` with the spec's defaults (gas 90 000, gasPrice 0, value 0,
 * nonce = next pending nonce of `obj.from`) — shared by eth_sendTransaction and eth_signTransaction.
 * @param obj a decoded transaction object with `from` set
 */
export async function txDataFrom(s: Services, obj: CallRequest & { from: Uint8Array }): Promise<LegacyTxData> {
  return txData(obj, obj.nonce ?? (await s.chain.pendingNonce(obj.from)))
}

/** {@link txDataFrom} with the nonce given. */
function txData(obj: CallRequest, nonce: bigint): LegacyTxData {
  return {
    nonce,
    gasPrice: obj.gasPrice ?? 0n,
    gasLimit: obj.gas ?? DEFAULT_SEND_GAS,
    to: obj.to,
    value: obj.value ?? 0n,
    data: obj.data,
  }
}

/**
 * Builds and submits a transaction from `obj.from` with the spec's defaults (gas 90 000 — or, under a
 * compatibility profile, the eth_estimateGas of the request at `pending` —, gasPrice 0, value 0,
 * nonce = next pending nonce; an explicit nonce replaces an own pending transaction): signed when the node
 * holds the key unlocked (or with `signer`, the key personal_sendTransaction decrypted with its passphrase),
 * unsigned when the sender is impersonated (or `unsigned` is set: eth_sendUnsignedTransaction).
 * @returns the transaction hash
 * @throws RpcError -32602 "from is null" / "Could not find account for address: …" / "account … is locked…";
 *   -32010; -32015 (also the estimate's revert under a profile, nothing sent then)
 */
export async function sendFrom(
  s: Services,
  obj: CallRequest,
  unsigned: boolean,
  signer?: LocalAccount,
): Promise<Uint8Array> {
  const { chain } = s
  // Both are -32602 in the reference (EthModuleTransactionBase.sendTransaction).
  if (!obj.from) throw invalidParams('from is null')
  const account = signer ?? (unsigned ? undefined : s.accounts.get(obj.from))
  const impersonated = !account && (unsigned || s.impersonation.has(obj.from))
  if (!account && !impersonated)
    throw s.accounts.has(obj.from) ? new LockedAccountError(obj.from) : new UnknownAccountError(obj.from)
  const from = obj.from
  // a compatibility profile sends without `gas` with the estimate (Hardhat/Anvil); the reference uses 90 000
  const gas = obj.gas ?? (s.compat.estimateOmittedGas ? await chain.reads.estimateGas(obj, 'pending') : undefined)
  const build = (nonce: bigint) => {
    const data = txData({ ...obj, gas }, nonce)
    return account
      ? signLegacyTransaction(account.privateKey, data, chain.reads.common, from)
      : impersonatedTransaction(from, data, chain.reads.common)
  }
  // without an explicit nonce the pending nonce is taken inside the chain's queue, right before the pool sees
  // the transaction: concurrent sends from one account then get consecutive nonces
  return (
    await chain.submit(obj.nonce === undefined ? build : build(obj.nonce), from, { allowMissingSender: impersonated })
  ).hash
}

/** The eth_ methods of this module. */
export function ethMethods(s: Services): MethodSpec[] {
  const { chain } = s
  const stateBlock = (ref: BlockRef) => requireBlock(chain, ref)
  /** The uncle at `index` in block shape without transactions, or null (reference getUncleResultDTO). */
  const uncleAt = (b: BlockRecord | undefined, index: bigint): unknown => {
    if (!b || index >= BigInt(b.uncles.length)) return null
    return formatBlock({ ...b.uncles[Number(index)]!, transactions: [] }, false)
  }

  return [
    method('eth_chainId', 'eth', 'EIP-155 chain id', [], () => quantity(chain.reads.chainId)),
    method('eth_protocolVersion', 'eth', 'protocol version', [], () => PROTOCOL_VERSION),
    method('eth_syncing', 'eth', 'false: a local node is never syncing', [], () => false),
    method('eth_coinbase', 'eth', 'miner coinbase address', [], () => toHex(chain.reads.nextContext().coinbase)),
    method('eth_mining', 'eth', 'whether the miner is running', [], () => s.miner.isMining()),
    method('eth_hashrate', 'eth', 'local hash rate (0)', [], () => '0x0'),
    method('eth_gasPrice', 'eth', 'minimumGasPrice of the best block × 1.1', [], () =>
      quantity((chain.reads.head.header.minimumGasPrice * 110n) / 100n),
    ),
    method('eth_accounts', 'eth', 'accounts the node holds keys for', [], () =>
      s.accounts.all().map((a) => toHex(a.address)),
    ),
    method('eth_blockNumber', 'eth', 'number of the best block', [], () => quantity(chain.reads.head.header.number)),

    method(
      'eth_getBalance',
      'eth',
      'balance in wei',
      [P.address(), optional(P.block(), LATEST)],
      async (_c, address, ref) => quantity((await chain.reads.account(address, await stateBlock(ref))).balance),
    ),
    method(
      'eth_getStorageAt',
      'eth',
      'storage word (32 bytes)',
      [P.address(), P.slot(), optional(P.block(), LATEST)],
      async (_c, address, slot, ref) => toHex(await chain.reads.storage(address, slot, await stateBlock(ref))),
    ),
    method(
      'eth_getTransactionCount',
      'eth',
      'nonce of an address',
      [P.address(), optional(P.block(), LATEST)],
      async (_c, address, ref) => {
        const b = await stateBlock(ref)
        return quantity(
          b === 'pending' ? await chain.pendingNonce(address) : (await chain.reads.account(address, b)).nonce,
        )
      },
    ),
    method(
      'eth_getCode',
      'eth',
      'contract code',
      [P.address(), optional(P.block(), LATEST)],
      async (_c, address, ref) => toHex(await chain.reads.code(address, await stateBlock(ref))),
    ),

    method(
      'eth_call',
      'eth',
      'runs a call without a transaction, with optional state and block overrides',
      [P.tx(), optional(P.block(), LATEST), stateOverrideParam(), blockOverrideParam()],
      async (_c, obj, ref, state, block) => {
        const r = await chain.reads.call(obj, await stateBlock(ref), { state, block })
        // Reverts are -32015 with data; other failures (out of gas, …) return the return data (reference).
        if (r.error === 'revert') throw executionError(r.error, r.returnValue)
        return toHex(r.returnValue)
      },
    ),
    method(
      'eth_estimateGas',
      'eth',
      "the reference's estimate: peak gas of one run",
      [
        P.tx(),
        optional(P.block(), { kind: 'tag', tag: 'pending' } as BlockRef),
        stateOverrideParam(),
        blockOverrideParam(),
      ],
      async (_c, obj, ref, state, block) =>
        quantity(await chain.reads.estimateGas(obj, await stateBlock(ref), { state, block })),
    ),

    method(
      'eth_sendRawTransaction',
      'eth',
      'submits a signed legacy transaction',
      [P.data('transaction')],
      async (_c, raw) => {
        const tx = decodeRawTransaction(raw, s)
        return toHex((await chain.submit(tx, tx.getSenderAddress().bytes)).hash)
      },
    ),
    method('eth_sendTransaction', 'eth', 'signs with an unlocked account and submits', [P.tx()], async (_c, obj) =>
      toHex(await sendFrom(s, obj, false)),
    ),

    method('eth_getTransactionByHash', 'eth', 'transaction or null', [P.hash('transactionHash')], async (_c, hash) => {
      const loc = await chain.reads.transaction(hash)
      if (loc) return formatTransaction(loc.tx, loc.block)
      const pooled = chain.reads.pooled(hash)
      return pooled ? formatTransaction(pooled, undefined) : null
    }),
    method('eth_getTransactionReceipt', 'eth', 'receipt or null', [P.hash('transactionHash')], async (_c, hash) => {
      const loc = await chain.reads.transaction(hash)
      return loc ? formatReceipt(loc.tx, loc.block) : null
    }),
    method(
      'eth_getBlockByNumber',
      'eth',
      'block or null',
      [P.block('block'), optional(P.bool('fullTransactions'), false)],
      async (_c, ref, full) => {
        const b = await resolveBlock(chain, ref)
        if (b === undefined) return null
        if (b === 'pending') {
          const p = await chain.reads.pendingBlock()
          return formatBlock(p, full, true, listedTransactions(p, s.compat))
        }
        return formatBlock(b, full, false, listedTransactions(b, s.compat))
      },
    ),
    method(
      'eth_getBlockByHash',
      'eth',
      'block or null',
      [P.hash('blockHash'), optional(P.bool('fullTransactions'), false)],
      async (_c, hash, full) => {
        const b = await chain.reads.blockByHash(hash)
        return b ? formatBlock(b, full, false, listedTransactions(b, s.compat)) : null
      },
    ),

    method(
      'eth_getBlockTransactionCountByHash',
      'eth',
      'number of transactions, or null',
      [P.hash('blockHash')],
      async (_c, hash) => {
        const b = await chain.reads.blockByHash(hash)
        return b ? quantity(listedTransactions(b, s.compat).length) : null
      },
    ),
    method(
      'eth_getBlockTransactionCountByNumber',
      'eth',
      'number of transactions',
      [P.block('block')],
      async (_c, ref) => quantity(listedTransactions((await blockOrPending(chain, ref, true))!, s.compat).length),
    ),
    method('eth_getUncleCountByBlockHash', 'eth', 'number of uncles', [P.hash('blockHash')], async (_c, hash) => {
      const b = await chain.reads.blockByHash(hash)
      if (!b) throw new RpcError(ErrorCode.InvalidRequest, `Block with hash ${toHex(hash)} not found`)
      return quantity(b.uncles.length)
    }),
    method('eth_getUncleCountByBlockNumber', 'eth', 'number of uncles', [P.block('block')], async (_c, ref) =>
      quantity((await blockOrPending(chain, ref, true))!.uncles.length),
    ),
    method(
      'eth_getUncleByBlockHashAndIndex',
      'eth',
      'uncle (block shape, no transactions) or null',
      [P.hash('blockHash'), P.quantity('index')],
      async (_c, hash, index) => uncleAt(await chain.reads.blockByHash(hash), index),
    ),
    method(
      'eth_getUncleByBlockNumberAndIndex',
      'eth',
      'uncle (block shape, no transactions) or null',
      [P.block('block'), P.quantity('index')],
      async (_c, ref, index) => uncleAt(await blockOrPending(chain, ref, false), index),
    ),
    method(
      'eth_getTransactionByBlockHashAndIndex',
      'eth',
      'transaction or null',
      [P.hash('blockHash'), P.quantity('index')],
      async (_c, hash, index) => {
        const b = await chain.reads.blockByHash(hash)
        const txs = b ? listedTransactions(b, s.compat) : []
        const t = index < BigInt(txs.length) ? txs[Number(index)] : undefined
        return t ? formatTransaction(t, b) : null
      },
    ),
    method(
      'eth_getTransactionByBlockNumberAndIndex',
      'eth',
      'transaction or null',
      [P.block('block'), P.quantity('index')],
      async (_c, ref, index) => {
        const b = await blockOrPending(chain, ref, false)
        const txs = b ? listedTransactions(b, s.compat) : []
        const t = index < BigInt(txs.length) ? txs[Number(index)] : undefined
        if (!t) return null
        return ref.kind === 'tag' && ref.tag === 'pending'
          ? formatTransaction({ tx: t.tx, hash: t.hash, from: t.from }, undefined)
          : formatTransaction(t, b)
      },
    ),

    method('eth_getLogs', 'eth', 'logs matching a filter', [P.filter()], async (_c, f) => {
      let from: bigint
      let to: bigint
      if (f.blockHash) {
        const b = await chain.reads.blockByHash(f.blockHash)
        if (!b) return []
        from = to = b.header.number
      } else {
        const head = chain.reads.head.header.number
        const num = async (ref: BlockRef | undefined): Promise<bigint> => {
          if (!ref) return head
          const b = await resolveBlock(chain, ref)
          if (b === undefined) return ref.kind === 'number' ? ref.number : head
          return b === 'pending' ? head : b.header.number
        }
        from = await num(f.fromBlock)
        to = await num(f.toBlock)
        if (to > head) to = head
        if (from > to) return []
      }
      const matches = await queryLogs(chain.reads, from, to, f, keccak256, s.compat.logBlockLimit)
      return logsJson(matches)
    }),
  ]
}

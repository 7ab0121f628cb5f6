/**
 * The calls a fork makes to its remote node, typed: only methods the reference node serves, state read at a
 * block NUMBER in hex (never an EIP-1898 object, which the reference's parameter reader mishandles), and the
 * chain-specific module tried under both of its names (docs/reference-rules.md#rule-fork-remote).
 */
import { fromHex, quantity, toHex } from '../util/bytes.js'
import type { RemoteClient } from './remote-client.js'
import { RemoteCallError, RemoteProtocolError } from './remote-errors.js'

/** A block, transaction, receipt or log as the remote's JSON (fields as the reference names them). */
export type RemoteJson = Record<string, unknown>

/** A log query by block range (numbers, never tags) or by block hash. */
export type RemoteLogFilter = {
  address?: string | string[]
  topics?: Array<string | string[] | null>
} & ({ fromBlock: bigint; toBlock: bigint } | { blockHash: Uint8Array })

/** JSON-RPC "method not found": the remote does not serve the method (or has its module off). */
const METHOD_NOT_FOUND = -32601

/**
 * Typed reads from a remote node of this chain. Every state read takes the block number it reads at.
 * Methods that answer "not found" return null; errors are the client's (RemoteCallError, RemoteUnavailableError,
 * RemoteProtocolError, all JSON-RPC -32000).
 */
export class RemoteNode {
  /** method suffix → the prefix that works (null: none does). */
  private readonly extResolved = new Map<string, string | null>()
  private readonly extProbing = new Map<string, Promise<string | null>>()

  /**
   * @param client the transport
   * @param extPrefixes names of the chain-specific module to try, in order: the spec's `ext_` (node-cli) and the
   *   reference's own `rsk_`
   */
  constructor(
    readonly client: RemoteClient,
    private readonly extPrefixes: readonly string[] = ['ext_', 'rsk_'],
  ) {}

  /** `eth_chainId` as a number. */
  async chainId(): Promise<bigint> {
    return this.quantityOf('eth_chainId', await this.client.call('eth_chainId'))
  }

  /** `eth_blockNumber`: the remote's head. */
  async blockNumber(): Promise<bigint> {
    return this.quantityOf('eth_blockNumber', await this.client.call('eth_blockNumber'))
  }

  /** Balance in wei of `address` at block `block`. */
  async balance(address: Uint8Array, block: bigint): Promise<bigint> {
    return this.quantityOf(
      'eth_getBalance',
      await this.client.call('eth_getBalance', [toHex(address), quantity(block)]),
    )
  }

  /** Nonce (`eth_getTransactionCount`) of `address` at block `block`. */
  async nonce(address: Uint8Array, block: bigint): Promise<bigint> {
    const v = await this.client.call('eth_getTransactionCount', [toHex(address), quantity(block)])
    return this.quantityOf('eth_getTransactionCount', v)
  }

  /** Code of `address` at block `block` (empty without code). */
  async code(address: Uint8Array, block: bigint): Promise<Uint8Array> {
    return this.dataOf('eth_getCode', await this.client.call('eth_getCode', [toHex(address), quantity(block)]))
  }

  /** `eth_getStorageAt`: the 32-byte word of a slot at block `block` (zeros when unset). */
  async storageAt(address: Uint8Array, slot: Uint8Array, block: bigint): Promise<Uint8Array> {
    return this.dataOf(
      'eth_getStorageAt',
      await this.client.call('eth_getStorageAt', [toHex(address), toHex(slot), quantity(block)]),
    )
  }

  /**
   * The raw bytes of a storage cell at block `block` (cells of native contracts may be longer than 32 bytes or
   * a single zero byte; docs/reference-rules.md#rule-storage-bytes): empty when unset, undefined when the remote
   * serves no storage-bytes method (the reference has it off by default).
   */
  async storageBytes(address: Uint8Array, slot: Uint8Array, block: bigint): Promise<Uint8Array | undefined> {
    const got = await this.ext('getStorageBytesAt', [toHex(address), toHex(slot), quantity(block)])
    if (got === undefined) return undefined
    if (got.value === '0x0') return new Uint8Array(0)
    return this.dataOf(got.method, got.value)
  }

  /** `eth_getBlockByNumber` at a number, with full transaction objects or hashes; null when there is none. */
  async blockByNumber(block: bigint, fullTransactions: boolean): Promise<RemoteJson | null> {
    return this.objectOf(
      'eth_getBlockByNumber',
      await this.client.call('eth_getBlockByNumber', [quantity(block), fullTransactions]),
    )
  }

  /** `eth_getBlockByHash`; null when the remote does not know the hash. */
  async blockByHash(hash: Uint8Array, fullTransactions: boolean): Promise<RemoteJson | null> {
    return this.objectOf(
      'eth_getBlockByHash',
      await this.client.call('eth_getBlockByHash', [toHex(hash), fullTransactions]),
    )
  }

  /** `eth_getTransactionByHash`; null when unknown. */
  async transactionByHash(hash: Uint8Array): Promise<RemoteJson | null> {
    return this.objectOf('eth_getTransactionByHash', await this.client.call('eth_getTransactionByHash', [toHex(hash)]))
  }

  /** `eth_getTransactionReceipt`; null when unknown. */
  async transactionReceipt(hash: Uint8Array): Promise<RemoteJson | null> {
    return this.objectOf(
      'eth_getTransactionReceipt',
      await this.client.call('eth_getTransactionReceipt', [toHex(hash)]),
    )
  }

  /** `eth_getLogs` over a numbered block range or one block hash (the remote's limits apply: 5000 blocks). */
  async logs(filter: RemoteLogFilter): Promise<RemoteJson[]> {
    const f: Record<string, unknown> = {}
    if ('blockHash' in filter) f.blockHash = toHex(filter.blockHash)
    else {
      f.fromBlock = quantity(filter.fromBlock)
      f.toBlock = quantity(filter.toBlock)
    }
    if (filter.address !== undefined) f.address = filter.address
    if (filter.topics !== undefined) f.topics = filter.topics
    const v = await this.client.call('eth_getLogs', [f])
    if (!Array.isArray(v)) throw new RemoteProtocolError(this.client.origin, 'eth_getLogs did not answer an array')
    return v as RemoteJson[]
  }

  /**
   * The uncompressed header RLP of a block by number (docs/reference-rules.md#rule-raw-header): null when there
   * is no such block, undefined when the remote serves no raw-header method.
   */
  async rawHeaderByNumber(block: bigint): Promise<Uint8Array | null | undefined> {
    const got = await this.ext('getRawBlockHeaderByNumber', [quantity(block)])
    return got === undefined ? undefined : got.value === null ? null : this.dataOf(got.method, got.value)
  }

  /** As {@link rawHeaderByNumber}, by block hash. */
  async rawHeaderByHash(hash: Uint8Array): Promise<Uint8Array | null | undefined> {
    const got = await this.ext('getRawBlockHeaderByHash', [toHex(hash)])
    return got === undefined ? undefined : got.value === null ? null : this.dataOf(got.method, got.value)
  }

  /**
   * Calls a method of the chain-specific module under the first name the remote serves (found once per method, by
   * asking all the names in one batch).
   * @returns the full method name and its result, or undefined when no name is served
   */
  private async ext(suffix: string, params: unknown[]): Promise<{ method: string; value: unknown } | undefined> {
    const known = this.extResolved.get(suffix)
    if (known === null) return undefined
    if (known !== undefined) return { method: known + suffix, value: await this.client.call(known + suffix, params) }
    let probe = this.extProbing.get(suffix)
    if (probe === undefined) {
      // the first caller asks every name at once (one batch: a remote serving only a later name costs no extra round
      // trip) and takes the first served, in order; callers arriving meanwhile wait for its finding
      let first: { method: string; value: unknown } | undefined
      probe = (async () => {
        const answers = await Promise.allSettled(
          this.extPrefixes.map((prefix) => this.client.call(prefix + suffix, params)),
        )
        for (const [i, a] of answers.entries()) {
          if (a.status === 'fulfilled') {
            first = { method: this.extPrefixes[i]! + suffix, value: a.value }
            return this.extPrefixes[i]!
          }
          const e: unknown = a.reason
          if (!(e instanceof RemoteCallError && e.remoteCode === METHOD_NOT_FOUND)) throw e
        }
        return null
      })()
      this.extProbing.set(suffix, probe)
      try {
        const prefix = await probe
        this.extResolved.set(suffix, prefix)
        return first
      } finally {
        this.extProbing.delete(suffix)
      }
    }
    const prefix = await probe
    return prefix === null
      ? undefined
      : { method: prefix + suffix, value: await this.client.call(prefix + suffix, params) }
  }

  private quantityOf(method: string, v: unknown): bigint {
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v)) throw this.bad(method, 'a hex quantity', v)
    return BigInt(v)
  }

  private dataOf(method: string, v: unknown): Uint8Array {
    if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw this.bad(method, 'hex data', v)
    return fromHex(v)
  }

  private objectOf(method: string, v: unknown): RemoteJson | null {
    if (v === null) return null
    if (typeof v !== 'object' || Array.isArray(v)) throw this.bad(method, 'an object or null', v)
    return v as RemoteJson
  }

  private bad(method: string, want: string, got: unknown): RemoteProtocolError {
    return new RemoteProtocolError(
      this.client.origin,
      `${method} answered ${JSON.stringify(got)?.slice(0, 80)}, not ${want}`,
    )
  }
}

/** The 32-byte word of a storage cell read with eth_getStorageAt, as the Unitrie keeps it (no leading zeros). */
export function storedWord(word: Uint8Array): Uint8Array {
  let i = 0
  while (i < word.length && word[i] === 0) i++
  return word.slice(i)
}

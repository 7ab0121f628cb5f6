/**
 * Parameter decoders: raw JSON params → typed values, once, at the edge (docs/architecture.md#params-at-the-edge).
 * Every failure is a -32602 RpcError naming the argument position, in the reference's wording where it
 * has one ("invalid argument 0: hex string has length 38, want 40 for RSK address").
 */
import type { CallRequest } from '../execution/executor.js'
import { invalidParams } from './rpc-error.js'
import { fromHex } from '../util/bytes.js'

/** A positional parameter: its name (for docs/errors), whether it may be omitted, and its decoder. */
export interface Param<T> {
  readonly name: string
  readonly optional: boolean
  /**
   * @param value the raw JSON value (undefined when omitted and optional)
   * @param index position, for error messages
   * @throws RpcError -32602
   */
  decode(value: unknown, index: number): T
}

/** The decoded tuple of a parameter list. */
export type Decoded<P extends readonly Param<unknown>[]> = { [K in keyof P]: P[K] extends Param<infer T> ? T : never }

function fail(index: number, message: string): never {
  throw invalidParams(`invalid argument ${index}: ${message}`)
}

const HEX_RE = /^0x[0-9a-fA-F]*$/

/** A required parameter from a decode function. */
export function param<T>(name: string, decode: (value: unknown, index: number) => T): Param<T> {
  return { name, optional: false, decode }
}

/** Makes a parameter optional with a default used when it is omitted or null. */
export function optional<T, D extends T | undefined>(p: Param<T>, fallback: D): Param<T | D> {
  return {
    name: p.name,
    optional: true,
    decode: (value, index) => (value === undefined || value === null ? fallback : p.decode(value, index)),
  }
}

/** Decodes a QUANTITY: `0x`-hex without leading zeros (leading zeros tolerated), or a JSON integer. */
export function decodeQuantity(value: unknown, index: number): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value)
  if (typeof value !== 'string') fail(index, `cannot unmarshal ${typeName(value)} into a hex quantity`)
  if (!HEX_RE.test(value) || value.length === 2) fail(index, `hex string "${value}" is not a valid quantity`)
  return BigInt(value)
}

/** Decodes DATA of any length (`0x`-hex, even length). */
export function decodeData(value: unknown, index: number): Uint8Array {
  if (typeof value !== 'string') fail(index, `cannot unmarshal ${typeName(value)} into hex data`)
  if (!HEX_RE.test(value)) fail(index, `hex string without 0x prefix or with invalid characters`)
  if (value.length % 2 !== 0) fail(index, `hex string has odd length`)
  return fromHex(value)
}

/** Decodes DATA of an exact length in bytes. `what` names it in the error ("RSK address", "hash"). */
export function decodeFixed(value: unknown, index: number, bytes: number, what: string): Uint8Array {
  if (typeof value !== 'string') fail(index, `cannot unmarshal ${typeName(value)} into ${what}`)
  if (!HEX_RE.test(value)) fail(index, `hex string without 0x prefix or with invalid characters`)
  const len = value.length - 2
  if (len !== bytes * 2) fail(index, `hex string has length ${len}, want ${bytes * 2} for ${what}`)
  return fromHex(value)
}

/** Decodes a 20-byte address. */
export function decodeAddress(value: unknown, index: number): Uint8Array {
  return decodeFixed(value, index, 20, 'RSK address')
}

/** Decodes a 32-byte hash. */
export function decodeHash(value: unknown, index: number): Uint8Array {
  return decodeFixed(value, index, 32, 'hash')
}

/** Decodes a boolean. */
export function decodeBool(value: unknown, index: number): boolean {
  if (typeof value !== 'boolean') fail(index, `cannot unmarshal ${typeName(value)} into a boolean`)
  return value
}

/** A 32-byte storage position from a QUANTITY or 32-byte DATA. */
export function decodeStorageSlot(value: unknown, index: number): Uint8Array {
  const q = decodeQuantity(value, index)
  if (q >= 1n << 256n) fail(index, 'storage position larger than 32 bytes')
  return fromHex(q.toString(16).padStart(64, '0'))
}

/** A block identifier (docs/reference-rules.md#rule-encoding). */
export type BlockRef =
  | { kind: 'tag'; tag: 'latest' | 'earliest' | 'pending' }
  | { kind: 'number'; number: bigint }
  | { kind: 'hash'; hash: Uint8Array }

/**
 * Decodes a block identifier: a tag (`latest`, `earliest`, `pending`; `safe`/`finalized` read as latest),
 * a QUANTITY number, a 32-byte hash (where `allowHash`), or the map `{blockHash}` / `{blockNumber}`.
 */
export function decodeBlockRef(value: unknown, index: number, allowHash = true): BlockRef {
  if (typeof value === 'string') {
    switch (value) {
      case 'latest':
      case 'safe':
      case 'finalized':
        return { kind: 'tag', tag: 'latest' }
      case 'earliest':
      case 'pending':
        return { kind: 'tag', tag: value }
    }
    if (allowHash && value.length === 66 && HEX_RE.test(value)) return { kind: 'hash', hash: fromHex(value) }
    if (!HEX_RE.test(value) || value.length === 2) fail(index, `invalid block identifier "${value}"`)
    return { kind: 'number', number: BigInt(value) }
  }
  if (typeof value === 'number') return { kind: 'number', number: decodeQuantity(value, index) }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>
    if (o.blockHash !== undefined) return { kind: 'hash', hash: decodeHash(o.blockHash, index) }
    if (o.blockNumber !== undefined) return decodeBlockRef(o.blockNumber, index, false)
  }
  fail(index, `invalid block identifier ${JSON.stringify(value)}`)
}

/**
 * Decodes a call/transaction object. `data` and `input` are aliases (reference); when both are present they
 * must be equal. `to: null` means contract creation. EIP-1559 fee fields are ignored (reference
 * TransactionArgumentsUtil).
 */
export function decodeTxObject(value: unknown, index: number): CallRequest {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(index, 'expected a transaction object')
  const o = value as Record<string, unknown>
  const field = <T>(name: string, dec: (v: unknown, i: number) => T): T | undefined => {
    const v = o[name]
    if (v === undefined || v === null) return undefined
    try {
      return dec(v, index)
    } catch (err) {
      throw invalidParams(
        `invalid argument ${index}: field "${name}": ${(err as Error).message.replace(/^invalid argument \d+: /, '')}`,
      )
    }
  }
  const data = field('data', decodeData)
  const input = field('input', decodeData)
  if (data && input && Buffer.compare(data, input) !== 0) fail(index, 'both "data" and "input" are set and not equal')
  return {
    from: field('from', decodeAddress),
    to: field('to', decodeAddress),
    gas: field('gas', decodeQuantity),
    gasPrice: field('gasPrice', decodeQuantity),
    value: field('value', decodeQuantity),
    data: input ?? data,
    nonce: field('nonce', decodeQuantity),
  }
}

/** A log filter (eth_getLogs / eth_newFilter), decoded. */
export interface FilterObject {
  fromBlock?: BlockRef
  toBlock?: BlockRef
  blockHash?: Uint8Array
  /** Empty = any address. */
  addresses: Uint8Array[]
  /** Per position: null = wildcard, else alternatives. */
  topics: (Uint8Array[] | null)[]
}

/** Decodes a log filter object (docs/reference-rules.md#rule-log-matching; reference spelling `blockhash` accepted). */
export function decodeFilter(value: unknown, index: number): FilterObject {
  if (value === undefined || value === null) return { addresses: [], topics: [] }
  if (typeof value !== 'object' || Array.isArray(value)) fail(index, 'expected a filter object')
  const o = value as Record<string, unknown>
  const blockHashRaw = o.blockHash ?? o.blockhash
  const blockHash = blockHashRaw === undefined || blockHashRaw === null ? undefined : decodeHash(blockHashRaw, index)
  const fromBlock =
    o.fromBlock === undefined || o.fromBlock === null ? undefined : decodeBlockRef(o.fromBlock, index, false)
  const toBlock = o.toBlock === undefined || o.toBlock === null ? undefined : decodeBlockRef(o.toBlock, index, false)
  if (blockHash && (fromBlock || toBlock)) fail(index, 'cannot specify both blockHash and fromBlock/toBlock')
  let addresses: Uint8Array[] = []
  if (typeof o.address === 'string') addresses = [decodeAddress(o.address, index)]
  else if (Array.isArray(o.address)) addresses = o.address.map((a) => decodeAddress(a, index))
  else if (o.address !== undefined && o.address !== null) fail(index, 'address must be a string or an array')
  let topics: (Uint8Array[] | null)[] = []
  if (Array.isArray(o.topics)) {
    if (o.topics.length > 4) fail(index, 'at most 4 topic positions')
    topics = o.topics.map((t) => {
      if (t === null || t === undefined) return null
      if (typeof t === 'string') return [decodeHash(t, index)]
      if (Array.isArray(t))
        return t.length === 0
          ? null
          : t.map((x) => (x === null ? null : decodeHash(x, index))).filter((x): x is Uint8Array => x !== null)
      fail(index, 'topics must be null, a hash or an array of hashes')
    })
  } else if (o.topics !== undefined && o.topics !== null) fail(index, 'topics must be an array')
  return { fromBlock, toBlock, blockHash, addresses, topics }
}

function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

/** Common parameter definitions. */
export const P = {
  address: (name = 'address') => param(name, decodeAddress),
  hash: (name = 'hash') => param(name, decodeHash),
  data: (name = 'data') => param(name, decodeData),
  quantity: (name: string) => param(name, decodeQuantity),
  /**
   * A QUANTITY (or JSON integer) from 0 to `max`; above it -32602 `invalid argument <i>: <name> must be at most
   * <max>, got <n>` (page sizes and numbers with a bound).
   */
  quantityAtMost: (name: string, max: bigint) =>
    param(name, (v, i) => {
      const n = decodeQuantity(v, i)
      if (n > max) fail(i, `${name} must be at most ${max}, got ${n}`)
      return n
    }),
  bool: (name: string) => param(name, decodeBool),
  block: (name = 'block') => param(name, (v, i) => decodeBlockRef(v, i)),
  blockNoHash: (name = 'block') => param(name, (v, i) => decodeBlockRef(v, i, false)),
  slot: (name = 'position') => param(name, decodeStorageSlot),
  tx: (name = 'transaction') => param(name, decodeTxObject),
  filter: (name = 'filter') => param(name, decodeFilter),
  string: (name: string) =>
    param(name, (v, i) => {
      if (typeof v !== 'string') fail(i, `cannot unmarshal ${typeName(v)} into a string`)
      return v
    }),
  any: (name: string) => param(name, (v) => v),
} as const

/** The default block reference (`latest`). */
export const LATEST: BlockRef = { kind: 'tag', tag: 'latest' }

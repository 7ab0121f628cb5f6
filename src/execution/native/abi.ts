/**
 * The slice of the Solidity ABI the native contracts speak (rskj J/org/ethereum/core/CallTransaction.java,
 * J/org/ethereum/solidity/SolidityType.java): 4-byte selectors, 32-byte words, dynamic `bytes`/`string`
 * arguments and outputs. Kept small on purpose (no ABI library in the node's start-up path).
 */
import { keccak256 } from '../../crypto/keccak.js'
import { bytesToBigInt, concat } from '../../util/bytes.js'

/** Thrown when call data does not decode as the method's inputs (the reference: method not found, gas 0). */
export class AbiDecodeError extends Error {}

/** First 4 bytes of keccak256(signature), e.g. `getCallStackDepth()`. */
export function selector(signature: string): Uint8Array {
  return keccak256(new TextEncoder().encode(signature)).subarray(0, 4)
}

/** A 32-byte big-endian word of an unsigned value (two's complement for a negative one). */
export function word(value: bigint): Uint8Array {
  const v = value < 0n ? (1n << 256n) + value : value
  const out = new Uint8Array(32)
  let x = v
  for (let i = 31; i >= 0 && x > 0n; i--) {
    out[i] = Number(x & 0xffn)
    x >>= 8n
  }
  return out
}

/** A 32-byte word holding a 20-byte address, left-padded. */
export function addressWord(address: Uint8Array): Uint8Array {
  const out = new Uint8Array(32)
  out.set(address, 32 - address.length)
  return out
}

/** `bytes` body: length word, then the data right-padded to a multiple of 32 bytes. */
function dynamicBody(data: Uint8Array): Uint8Array {
  const padded = new Uint8Array(Math.ceil(data.length / 32) * 32)
  padded.set(data)
  return concat(word(BigInt(data.length)), padded)
}

/** A dynamic or static output value. */
export type AbiValue =
  | { type: 'word'; value: Uint8Array }
  | { type: 'bytes'; value: Uint8Array }
  | { type: 'string'; value: string }
  | { type: 'bytes[]'; value: Uint8Array[] }

/**
 * Encodes a tuple of outputs (head words, then the tails of dynamic values).
 * @param values static words (`word`) or dynamic values (`bytes`, `string`, `bytes[]`)
 */
export function encodeTuple(values: AbiValue[]): Uint8Array {
  const heads: Uint8Array[] = []
  const tails: Uint8Array[] = []
  let offset = 32 * values.length
  for (const v of values) {
    if (v.type === 'word') {
      heads.push(v.value)
      continue
    }
    let tail: Uint8Array
    if (v.type === 'bytes') tail = dynamicBody(v.value)
    else if (v.type === 'string') tail = dynamicBody(new TextEncoder().encode(v.value))
    else tail = encodeBytesArray(v.value)
    heads.push(word(BigInt(offset)))
    tails.push(tail)
    offset += tail.length
  }
  return concat(...heads, ...tails)
}

/** `bytes[]` body: count, then offsets (relative to the first offset word), then each element. */
function encodeBytesArray(items: Uint8Array[]): Uint8Array {
  return concat(word(BigInt(items.length)), encodeTuple(items.map((value) => ({ type: 'bytes' as const, value }))))
}

/** ABI of one `bytes` output. */
export const encodeBytes = (value: Uint8Array): Uint8Array => encodeTuple([{ type: 'bytes', value }])

/** ABI of one unsigned/signed integer output. */
export const encodeUint = (value: bigint): Uint8Array => word(value)

/** ABI of one `string` output. */
export const encodeString = (value: string): Uint8Array => encodeTuple([{ type: 'string', value }])

/**
 * Reads argument words after the selector.
 * @param data the whole call data (selector included)
 */
export class ArgReader {
  constructor(private readonly data: Uint8Array) {}

  /** The 32-byte argument word at `index`. @throws AbiDecodeError when the data is too short */
  word(index: number): Uint8Array {
    const start = 4 + 32 * index
    if (this.data.length < start + 32) throw new AbiDecodeError(`argument ${index} missing`)
    return this.data.subarray(start, start + 32)
  }

  /** Unsigned value of argument `index`. */
  uint(index: number): bigint {
    return bytesToBigInt(this.word(index))
  }

  /** Signed (two's complement) value of argument `index` (`int256`). */
  int(index: number): bigint {
    const v = this.uint(index)
    return v >= 1n << 255n ? v - (1n << 256n) : v
  }

  /** A dynamic `bytes` argument whose offset word is argument `index`. @throws AbiDecodeError when out of range */
  bytes(index: number): Uint8Array {
    const offset = this.uint(index)
    const body = 4n + offset
    if (body + 32n > BigInt(this.data.length)) throw new AbiDecodeError(`argument ${index} out of range`)
    const len = bytesToBigInt(this.data.subarray(Number(body), Number(body) + 32))
    const start = body + 32n
    if (start + len > BigInt(this.data.length)) throw new AbiDecodeError(`argument ${index} out of range`)
    return this.data.slice(Number(start), Number(start + len))
  }

  /** A dynamic `string` argument (UTF-8). */
  string(index: number): string {
    return new TextDecoder().decode(this.bytes(index))
  }

  /** A dynamic `bytes[]` argument. */
  bytesArray(index: number): Uint8Array[] {
    const offset = this.uint(index)
    const base = 4n + offset
    if (base + 32n > BigInt(this.data.length)) throw new AbiDecodeError(`argument ${index} out of range`)
    const count = bytesToBigInt(this.data.subarray(Number(base), Number(base) + 32))
    if (count > BigInt(this.data.length)) throw new AbiDecodeError(`argument ${index} out of range`)
    // element offsets are relative to the start of the element area (right after the count word)
    const inner = new ArgReader(concat(new Uint8Array(4), this.data.subarray(Number(base) + 32)))
    const out: Uint8Array[] = []
    for (let i = 0; i < Number(count); i++) out.push(inner.bytes(i))
    return out
  }
}

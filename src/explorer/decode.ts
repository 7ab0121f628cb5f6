/**
 * ABI decoding for the tx page with viem's tree-shakeable decoders: revert data (Error(string), Panic(uint256)
 * with the compiler's meaning of its code, custom errors by name from the contract's ABI or the well-known
 * OpenZeppelin errors), event logs (the contract's ABI first, then ERC-20, then ERC-721) and call data.
 */
import { decodeErrorResult, decodeEventLog, decodeFunctionData, type Abi, type Hex } from 'viem'
import { ERC20_EVENTS, ERC721_EVENTS, OZ_ERRORS } from './well-known-abi.js'

/** A decoded call, event or error: its name and its arguments as display strings, in order. */
export interface Decoded {
  name: string
  args: { name: string; value: string }[]
}

/** Solidity's panic codes (the compiler's documented meanings of Panic(uint256)). */
const PANIC: Record<number, string> = {
  0x00: 'generic compiler panic',
  0x01: 'assertion failed',
  0x11: 'arithmetic overflow or underflow',
  0x12: 'division or modulo by zero',
  0x21: 'invalid enum value',
  0x22: 'invalid storage byte array',
  0x31: 'pop on an empty array',
  0x32: 'array index out of bounds',
  0x41: 'out of memory',
  0x51: 'call to an uninitialised function',
}

/** One argument value as text: bigints in decimal, arrays and tuples as JSON-like lists. */
export function show(value: unknown): string {
  if (typeof value === 'bigint') return value.toString()
  if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}: ${show(v)}`)
      .join(', ')}}`
  }
  return String(value)
}

function named(
  name: string,
  inputs: readonly { name?: string }[] | undefined,
  args: readonly unknown[] | Record<string, unknown> | undefined,
): Decoded {
  const list = Array.isArray(args) ? args : inputs?.map((i, n) => (args as Record<string, unknown>)?.[i.name ?? n])
  return {
    name,
    args: (list ?? []).map((v, i) => ({ name: inputs?.[i]?.name || `arg${i}`, value: show(v) })),
  }
}

/**
 * Decodes revert data.
 * @param data the revert's return data (0x hex)
 * @param abi the contract's ABI when known (its custom errors), else undefined
 * @returns "Error(string)" as name `Error` with the reason, `Panic` with the code and its meaning, a custom error
 *   by name; undefined for empty or unknown data
 */
export function decodeRevert(data: string, abi?: readonly unknown[]): Decoded | undefined {
  if (data === '0x' || data.length < 10) return undefined
  for (const candidate of [abi, OZ_ERRORS]) {
    try {
      const r = decodeErrorResult({ abi: (candidate ?? []) as Abi, data: data as Hex })
      if (r.errorName === 'Panic') {
        const code = Number(r.args?.[0] ?? 0n)
        const meaning = PANIC[code] ?? 'unknown panic code'
        return { name: 'Panic', args: [{ name: 'code', value: `0x${code.toString(16)} (${meaning})` }] }
      }
      return named(r.errorName, 'inputs' in r.abiItem ? r.abiItem.inputs : undefined, r.args as readonly unknown[])
    } catch {
      // not in this ABI: try the next
    }
  }
  return undefined
}

/**
 * Decodes one log with the contract's ABI, then the ERC-20 and ERC-721 events.
 * @returns the event's name and arguments, or undefined when no ABI has it
 */
export function decodeLog(log: { topics: string[]; data: string }, abi?: readonly unknown[]): Decoded | undefined {
  if (log.topics.length === 0) return undefined
  for (const candidate of [abi, ERC20_EVENTS, ERC721_EVENTS]) {
    if (!candidate) continue
    try {
      const r = decodeEventLog({
        abi: candidate as Abi,
        topics: log.topics as [Hex, ...Hex[]],
        data: log.data as Hex,
        strict: true,
      })
      const item = (candidate as Abi).find((i) => i.type === 'event' && i.name === r.eventName)
      return named(r.eventName ?? '?', item?.type === 'event' ? item.inputs : undefined, r.args as never)
    } catch {
      // not this ABI (or another indexing of the same signature): try the next
    }
  }
  return undefined
}

/**
 * Decodes call data with the contract's ABI.
 * @returns the function's name and arguments, or undefined when unknown
 */
export function decodeCall(input: string, abi?: readonly unknown[]): Decoded | undefined {
  if (!abi || input.length < 10) return undefined
  try {
    const r = decodeFunctionData({ abi: abi as Abi, data: input as Hex })
    const item = (abi as Abi).find((i) => i.type === 'function' && i.name === r.functionName)
    return named(r.functionName, item?.type === 'function' ? item.inputs : undefined, r.args as never)
  } catch {
    return undefined
  }
}

/** A decoded item as one line: `Name(a: 1, b: 0x…)`. */
export function signatureLine(d: Decoded): string {
  return `${d.name}(${d.args.map((a) => `${a.name}: ${a.value}`).join(', ')})`
}

/**
 * Solidity `console.log` (hardhat/console.sol, forge-std console2): calls to the address
 * 0x000000000000000000636F6e736F6c652e6c6f67 ("console.log") are decoded into text lines as Hardhat and Anvil
 * print them. Every overload is recognised by its selector: log() and log/logUint/logInt/logString/logBool/
 * logAddress/logBytes/logBytes1…32 of one argument, and log(a, b[, c[, d]]) over uint256, int256, string, bool
 * and address (console.sol's old `uint` spelling too). A first string argument is a format string (%s, %d, %i,
 * %o, %x, %%), as Hardhat's util.format.
 *
 * Cost for contracts that never log: one byte compare per message (frame), then a full address compare only for
 * an address ending in 0x67 (see {@link ConsoleCapture}).
 */
import type { Address } from '@ethereumjs/util'
import { keccak256 } from '../crypto/secp256k1.js'

/** The console address (20 bytes). */
export const CONSOLE_ADDRESS = Uint8Array.from(Buffer.from('000000000000000000636f6e736f6c652e6c6f67', 'hex'))

type AbiType = 'uint256' | 'int256' | 'string' | 'bool' | 'address' | 'bytes' | `bytes${number}`

let selectors: Map<number, AbiType[]> | undefined

/** The selector table, built on first use (~1 600 signatures). */
function table(): Map<number, AbiType[]> {
  if (selectors !== undefined) return selectors
  const map = new Map<number, AbiType[]>()
  const add = (name: string, types: AbiType[], spelled: string[] = types): void => {
    const h = keccak256(Buffer.from(`${name}(${spelled.join(',')})`))
    map.set(((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0, types)
  }
  add('log', [])
  const singles: [string, AbiType][] = [
    ['logUint', 'uint256'],
    ['logInt', 'int256'],
    ['logString', 'string'],
    ['logBool', 'bool'],
    ['logAddress', 'address'],
    ['logBytes', 'bytes'],
  ]
  for (const [name, t] of singles) {
    add(name, [t])
    add('log', [t])
  }
  add('logUint', ['uint256'], ['uint'])
  add('logInt', ['int256'], ['int'])
  add('log', ['uint256'], ['uint'])
  add('log', ['int256'], ['int'])
  for (let n = 1; n <= 32; n++) add(`logBytes${n}`, [`bytes${n}`])
  const base: AbiType[] = ['uint256', 'int256', 'string', 'bool', 'address']
  const combos = (k: number): AbiType[][] => (k === 0 ? [[]] : combos(k - 1).flatMap((c) => base.map((t) => [...c, t])))
  for (let k = 2; k <= 4; k++) {
    for (const c of combos(k)) {
      add('log', c)
      if (c.includes('uint256'))
        add(
          'log',
          c,
          c.map((t) => (t === 'uint256' ? 'uint' : t)),
        )
    }
  }
  selectors = map
  return map
}

function word(data: Uint8Array, at: number): bigint {
  if (at + 32 > data.length) throw new Error('short')
  return BigInt('0x' + Buffer.from(data.subarray(at, at + 32)).toString('hex'))
}

function dynamicBytes(data: Uint8Array, head: number): Uint8Array {
  const offset = 4 + Number(word(data, head))
  const len = Number(word(data, offset))
  if (offset + 32 + len > data.length) throw new Error('short')
  return data.subarray(offset + 32, offset + 32 + len)
}

/** One decoded argument, as printed. */
function decodeArg(t: AbiType, data: Uint8Array, head: number): string | bigint | boolean {
  switch (t) {
    case 'uint256':
      return word(data, head)
    case 'int256': {
      const v = word(data, head)
      return v >= 1n << 255n ? v - (1n << 256n) : v
    }
    case 'bool':
      return word(data, head) !== 0n
    case 'address':
      if (head + 32 > data.length) throw new Error('short')
      return checksum(data.subarray(head + 12, head + 32))
    case 'string':
      return Buffer.from(dynamicBytes(data, head)).toString('utf8')
    case 'bytes':
      return '0x' + Buffer.from(dynamicBytes(data, head)).toString('hex')
    default: {
      const n = Number(t.slice(5))
      if (head + 32 > data.length) throw new Error('short')
      return '0x' + Buffer.from(data.subarray(head, head + n)).toString('hex')
    }
  }
}

/** EIP-55 checksummed address. */
function checksum(a: Uint8Array): string {
  const hex = Buffer.from(a).toString('hex')
  const h = Buffer.from(keccak256(Buffer.from(hex))).toString('hex')
  let out = '0x'
  for (let i = 0; i < 40; i++) out += parseInt(h[i]!, 16) >= 8 ? hex[i]!.toUpperCase() : hex[i]!
  return out
}

/** util.format-style rendering: a first string argument may hold %s %d %i %o %O %x %%. */
function render(args: (string | bigint | boolean)[]): string {
  if (args.length === 0) return ''
  const rest = [...args]
  const first = rest.shift()!
  let text: string
  if (typeof first === 'string' && first.includes('%')) {
    text = first.replace(/%([sdioOxj%])/g, (m, c: string) => {
      if (c === '%') return '%'
      if (rest.length === 0) return m
      const v = rest.shift()!
      if (c === 'x' && typeof v === 'bigint') return v.toString(16)
      return String(v)
    })
  } else {
    text = String(first)
  }
  return [text, ...rest.map(String)].join(' ')
}

/**
 * Decodes the calldata of a call to the console address into the printed line.
 * @returns the line, or undefined for an unknown selector or malformed data (Hardhat ignores those too)
 */
export function decodeConsoleLog(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined
  const sel = ((data[0]! << 24) | (data[1]! << 16) | (data[2]! << 8) | data[3]!) >>> 0
  const types = table().get(sel)
  if (types === undefined) return undefined
  try {
    return render(types.map((t, i) => decodeArg(t, data, 4 + 32 * i)))
  } catch {
    return undefined
  }
}

/** The EVM event emitter, as the capture uses it. */
interface MessageEvents {
  on(event: 'beforeMessage', listener: (m: { to?: Address; data: Uint8Array }) => void): unknown
}

/**
 * Collects the console lines of the executions of the VMs it is installed on. The owner {@link take}s the
 * lines after each transaction or call (and before, to drop what an unrelated run left).
 */
export class ConsoleCapture {
  private lines: string[] | undefined
  private readonly installed = new WeakSet<object>()

  constructor(private readonly enabled: () => boolean) {}

  /** Listens on a VM's EVM events (call once per VM). */
  install(events: MessageEvents): void {
    if (this.installed.has(events)) return
    this.installed.add(events)
    events.on('beforeMessage', (m) => {
      const to = m.to
      // one byte first: most frames are not console calls
      if (to === undefined || to.bytes[19] !== 0x67 || !this.enabled()) return
      const b = to.bytes
      for (let i = 0; i < 19; i++) if (b[i] !== CONSOLE_ADDRESS[i]) return
      const line = decodeConsoleLog(m.data)
      if (line !== undefined) (this.lines ??= []).push(line)
    })
  }

  /** The lines collected since the last call, emptied. */
  take(): string[] | undefined {
    const l = this.lines
    this.lines = undefined
    return l
  }
}

/**
 * The one RSKIP107 node-message reader (src/unitrie/node-message.ts) and its three users — decodeNode
 * (src/unitrie/unitrie-node.ts), the entry walk over stored messages (src/unitrie/unitrie-walk.ts) and the arena
 * copy (src/unitrie/trie-arena-copy.ts): every flag combination (with every shared-path prefix form and 1-, 3- and
 * 5-byte children sizes) read back against the node's own encoder, also from inside a larger buffer; every
 * truncation of those messages and of real nodes rejected by all four (the walk and the copy over an arena, where a
 * message is followed by other records' bytes); the pre-RSKIP107 format rejected; the nodes of built tries read
 * back part by part.
 */
import { describe, expect, it } from 'vitest'
import { NodeMessage } from '../../src/unitrie/node-message.js'
import { ArenaTrieStore } from '../../src/unitrie/trie-arena.js'
import { copyReachable } from '../../src/unitrie/trie-arena-copy.js'
import {
  encodeVarInt,
  FLAG_LEFT,
  FLAG_LEFT_EMBEDDED,
  FLAG_LONG_VALUE,
  FLAG_RIGHT,
  FLAG_RIGHT_EMBEDDED,
  FLAG_SHARED_PATH,
  FLAG_VERSION,
  unpackBits,
  varIntAt,
  varIntLength,
} from '../../src/unitrie/unitrie-codec.js'
import { decodeNode, HashRef, TrieNode, type Child } from '../../src/unitrie/unitrie-node.js'
import { unitrieFromEntries } from '../../src/unitrie/unitrie-bulk.js'
import { MemoryTrieNodeStore, type TrieNodeStore } from '../../src/unitrie/unitrie-store.js'
import { Unitrie } from '../../src/unitrie/unitrie.js'
import { unitrieEntryViews } from '../../src/unitrie/unitrie-walk.js'
import { seededRandom } from '../helpers/seeded.js'

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex')

/** Deterministic random bytes. */
function randomBytes(seed: number): (n: number) => Uint8Array {
  const r = seededRandom(seed)
  return (n) => Uint8Array.from({ length: n }, () => r(256))
}
const rnd = randomBytes(107)
const bits = (n: number): Uint8Array => rnd(n).map((b) => b & 1)

function leaf(pathBits: number, value: Uint8Array): TrieNode {
  return new TrieNode(bits(pathBits), value, value.length, undefined, undefined, undefined, undefined, undefined)
}

/** Shared paths: none, and each length-prefix form (1..32 bits, 0xff ‖ VarInt, 160..382 bits, 0xff ‖ 3-byte VarInt). */
const PATHS = [0, 5, 100, 200, 400]
/** Children: none, embedded (a small leaf), kept by hash (a leaf too large to embed), by hash with a 70 000-byte long value (children size ≥ 65 536: a 5-byte VarInt), one with 300 bytes (a 3-byte VarInt). */
const CHILDREN: (() => Child | undefined)[] = [
  () => undefined,
  () => leaf(3, rnd(2)),
  () => leaf(100, rnd(32)),
  () => leaf(8, rnd(70_000)),
  () => leaf(8, rnd(300)),
]
/** Values: none, short (1 and 32 bytes), long (33 bytes). */
const VALUES = [0, 1, 32, 33]

/** Every combination of shared path, left child, right child and value, as nodes. */
function combinations(): TrieNode[] {
  const out: TrieNode[] = []
  for (const p of PATHS)
    for (const left of CHILDREN)
      for (const right of CHILDREN)
        for (const v of VALUES) {
          const value = v === 0 ? undefined : rnd(v)
          out.push(new TrieNode(bits(p), value, v, undefined, left(), right(), undefined, undefined))
        }
  return out
}

/** The message of `c` as its parent writes it: its own message when embedded, else its hash. */
function childBytes(c: Child): Uint8Array {
  if (c instanceof HashRef) return c.hash
  return c.isEmbeddable() ? c.message() : c.hash()
}

/** Checks every part `r` read against the node `n` (the message starting at `base` of `r.bytes`). */
function expectParts(r: NodeMessage, n: TrieNode, base: number): void {
  const m = n.message()
  expect(r.start).toBe(base)
  expect(r.end).toBe(base + m.length)
  expect(r.flags).toBe(m[0])
  expect(r.flags & FLAG_VERSION).toBe(FLAG_VERSION)
  expect((r.flags & FLAG_SHARED_PATH) !== 0).toBe(n.path.length > 0)
  expect(r.pathBits).toBe(n.path.length)
  expect(hex(unpackBits(r.bytes, r.pathAt, r.pathBits))).toBe(hex(n.path))
  for (const side of [0, 1]) {
    const c = side === 0 ? n.left : n.right
    expect((r.flags & (side === 0 ? FLAG_LEFT : FLAG_RIGHT)) !== 0).toBe(c !== undefined)
    if (c === undefined) {
      expect([r.childAt(side), r.childEnd(side), r.childEmbedded(side)]).toEqual([-1, -1, false])
      continue
    }
    const embedded = !(c instanceof HashRef) && c.isEmbeddable()
    expect(r.childEmbedded(side)).toBe(embedded)
    expect((r.flags & (side === 0 ? FLAG_LEFT_EMBEDDED : FLAG_RIGHT_EMBEDDED)) !== 0).toBe(embedded)
    expect(hex(r.bytes.subarray(r.childAt(side), r.childEnd(side)))).toBe(hex(childBytes(c)))
  }
  expect([side(r, 0), side(r, 1)]).toEqual([
    [r.leftAt, r.leftEnd],
    [r.rightAt, r.rightEnd],
  ])
  expect(r.isTerminal).toBe(n.isTerminal)
  expect(r.childrenSize).toBe(n.isTerminal ? 0 : n.childrenSize())
  expect(r.hasLongValue).toBe(n.hasLongValue)
  expect((r.flags & FLAG_LONG_VALUE) !== 0).toBe(n.hasLongValue)
  expect(r.valueLength).toBe(n.valueLength)
  if (n.hasLongValue) {
    expect(hex(r.bytes.subarray(r.valueAt, r.valueAt + 32))).toBe(hex(n.getValueHash()!))
    expect(r.valueAt + 35).toBe(r.end)
  } else expect(hex(r.bytes.subarray(r.valueAt, r.end))).toBe(hex(n.getValue() ?? new Uint8Array(0)))
}
const side = (r: NodeMessage, s: number): number[] => [r.childAt(s), r.childEnd(s)]

/**
 * Runs `f`: undefined when it throws the error a bad message raises (a plain Error `Unitrie: …` matching `what`),
 * else what went wrong (checked this way, not with one expect per call: the truncation tests make ~100 000 calls).
 */
function badMessageError(f: () => unknown, what: RegExp = /^Unitrie: /): string | undefined {
  try {
    f()
  } catch (e) {
    if (!(e instanceof Error) || e.constructor !== Error) return `not a plain Error: ${String(e)}`
    return /^Unitrie: /.test(e.message) && what.test(e.message) ? undefined : `wrong message: ${e.message}`
  }
  return 'no error raised'
}

/** Checks that `f` throws the error a bad message raises (see {@link badMessageError}). */
function expectBad(f: () => unknown, what?: RegExp): void {
  expect(badMessageError(f, what)).toBeUndefined()
}

/**
 * Stores each message in a small-chunked arena (each followed by the next one's record) and a memory store, under
 * made-up hashes; @returns a check of message `i`: what failed of the walk (from an in-memory parent holding the
 * message's hash, over either store) and of the arena copy (from that hash) rejecting it.
 */
function storedUsers(messages: Uint8Array[]): (i: number, what?: RegExp) => string[] {
  const arena = new ArenaTrieStore(messages.length, 4096)
  const memory = new MemoryTrieNodeStore()
  // made-up hashes, distinct in the bytes the arena indexes by (the first six)
  const hashes = messages.map((_, i) => Uint8Array.from({ length: 32 }, (_, k) => (k < 6 ? i >> ((k % 3) * 8) : k)))
  messages.forEach((m, i) => {
    arena.put(hashes[i]!, m)
    memory.put(hashes[i]!, m)
  })
  const to = new ArenaTrieStore(0, 4096)
  const walk = (store: TrieNodeStore, h: Uint8Array): number => {
    const parent = new TrieNode(new Uint8Array(0), undefined, 0, undefined, new HashRef(h, store), undefined, 0, store)
    let n = 0
    for (const e of unitrieEntryViews(parent)) n += e.keyLength
    return n
  }
  return (i, what) => {
    const failed = [
      ['walk over an arena', badMessageError(() => walk(arena, hashes[i]!), what)],
      ['walk over a memory store', badMessageError(() => walk(memory, hashes[i]!), what)],
      // (`to` is not emptied between checks: no hash repeats)
      ['arena copy', badMessageError(() => copyReachable(arena, to, hashes[i]!), what)],
    ]
    return failed.filter(([, f]) => f !== undefined).map(([user, f]) => `${user}: ${f}`)
  }
}

/**
 * Checks every proper prefix of each message: rejected by all users while it cuts a part short, read as a node with
 * a shorter value when it cuts a short value. @returns how many prefixes were rejected (by each user)
 */
function expectTruncationsRejected(messages: Uint8Array[]): number {
  const stackTraceLimit = Error.stackTraceLimit
  Error.stackTraceLimit = 0 // (~100 000 errors raised: their stacks would cost most of the time)
  try {
    return checkTruncations(messages)
  } finally {
    Error.stackTraceLimit = stackTraceLimit
  }
}

/** {@link expectTruncationsRejected}'s work. */
function checkTruncations(messages: Uint8Array[]): number {
  const reader = new NodeMessage()
  const cuts: Uint8Array[] = []
  const failures: string[] = []
  for (const m of messages) {
    const whole = reader.read(m)
    // a short value is the rest of the message: a cut inside it (or right before it) reads as a shorter value
    const firstUndetectable = whole.hasLongValue ? m.length : whole.valueAt
    const padded = Uint8Array.from([...m, 0, 0, 0])
    const where = (k: number): string => `${hex(m)} cut at ${k}`
    for (let k = 0; k < m.length; k++) {
      const cut = m.slice(0, k)
      if (k < firstUndetectable) {
        cuts.push(cut)
        // (also with the bytes after the cut still in the buffer: its end must be the one that counts)
        for (const [user, f] of [
          ['reader', badMessageError(() => reader.read(cut))],
          ['reader in a larger buffer', badMessageError(() => reader.read(padded, 0, k))],
          ['decodeNode', badMessageError(() => decodeNode(cut))],
        ])
          if (f !== undefined) failures.push(`${where(k)}: ${user}: ${f}`)
      } else {
        const length = reader.read(cut).valueLength
        const value = hex(decodeNode(cut).getValue() ?? new Uint8Array(0))
        if (length !== k - firstUndetectable || value !== hex(m.subarray(firstUndetectable, k)))
          failures.push(`${where(k)}: not read as the value's first ${k - firstUndetectable} bytes`)
      }
    }
  }
  const check = storedUsers(cuts)
  cuts.forEach((cut, i) => failures.push(...check(i).map((f) => `${hex(cut)}: ${f}`)))
  expect(failures).toEqual([])
  return cuts.length
}

describe('NodeMessage (the RSKIP107 node message reader)', () => {
  const nodes = combinations()

  it('every flag combination reads back as the encoder wrote it, and decodeNode re-encodes it byte for byte', () => {
    const flags = new Set<number>()
    const reader = new NodeMessage()
    for (const n of nodes) {
      const m = n.message()
      flags.add(m[0]!)
      expectParts(reader.read(m), n, 0)
      // from inside a larger buffer, junk around it
      const buffer = new Uint8Array(m.length + 20).fill(0xff)
      buffer.set(m, 7)
      expectParts(reader.read(buffer, 7, 7 + m.length), n, 7)
      const decoded = decodeNode(m)
      expect(hex(decoded.path)).toBe(hex(n.path))
      expect(decoded.valueLength).toBe(n.valueLength)
      expect(decoded.childrenSize()).toBe(n.childrenSize())
      decoded._msg = undefined
      expect(hex(decoded.message())).toBe(hex(m))
      expect(hex(decoded.hash())).toBe(hex(n.hash()))
    }
    // version bit, long value, shared path, left/right, embedded left/right: all 36 flag values a node can have
    expect(flags.size).toBe(2 * 2 * 3 * 3)
  })

  it('the children size VarInt forms (1, 3, 5 bytes) and the shared path length forms all occur', () => {
    const reader = new NodeMessage()
    const varInts = new Set<number>()
    const pathPrefixes = new Set<string>()
    for (const n of nodes) {
      const r = reader.read(n.message())
      if (!r.isTerminal) varInts.add(encodeVarInt(r.childrenSize).length)
      if (r.pathBits > 0) pathPrefixes.add(r.bytes[1] === 0xff ? `varint ${r.pathAt - 2}` : 'one byte')
    }
    expect([...varInts].sort()).toEqual([1, 3, 5])
    expect([...pathPrefixes].sort()).toEqual(['one byte', 'varint 1', 'varint 3'])
  })

  it('varIntAt reads every CompactSize form encodeVarInt writes', () => {
    for (const v of [0, 252, 253, 0xffff, 0x10000, 0xffffffff, 2 ** 32, 2 ** 40 + 5, Number.MAX_SAFE_INTEGER]) {
      const e = encodeVarInt(v)
      expect(varIntLength(e[0]!)).toBe(e.length)
      expect(varIntAt(Uint8Array.from([9, ...e]), 1)).toBe(v)
    }
  })

  it('a message cut at any byte is rejected by the reader, decodeNode, the walk and the arena copy', () => {
    // (a 32-byte short value cuts like a 1-byte one, but for the cuts inside the value the format cannot tell)
    const rejected = expectTruncationsRejected(nodes.filter((n) => n.valueLength !== 32).map((n) => n.message()))
    expect(rejected).toBeGreaterThan(25_000)
  }, 120_000)

  it('the nodes of built tries read back part by part, and their truncations are rejected', () => {
    const r = seededRandom(41)
    const b = randomBytes(42)
    const entries: [Uint8Array, Uint8Array][] = []
    for (let i = 0; i < 400; i++) entries.push([b(1 + r(40)), b(r(3) === 0 ? 33 + r(100) : 1 + r(32))])
    const reader = new NodeMessage()
    const samples: Uint8Array[] = []
    for (const trie of [unitrieFromEntries(entries), Unitrie.fromEntries(entries)]) {
      let count = 0
      const stack = [trie.root!]
      while (stack.length > 0) {
        const n = stack.pop()!
        expectParts(reader.read(n.message()), n, 0)
        if (count++ % 40 === 0) samples.push(n.message())
        for (const b of [0, 1]) {
          const c = n.child(b)
          if (c) stack.push(c)
        }
      }
      expect(count).toBeGreaterThan(400)
    }
    expect(expectTruncationsRejected(samples)).toBeGreaterThan(100)
  })

  it('an old-format (pre-RSKIP107, "Orchid") message is rejected by all users', () => {
    // Orchid layout: arity 2, flags, shared path, child hashes, … (here: two child hashes and a short value)
    const orchid = Uint8Array.from([2, 0b11, ...rnd(32), ...rnd(32), 1, 2, 3])
    const pre = /pre-RSKIP107/
    expectBad(() => new NodeMessage().read(orchid), pre)
    expectBad(() => decodeNode(orchid), pre)
    expect(storedUsers([orchid])(0, pre)).toEqual([])
    // embedded in a parent: rejected when the child is read
    const parent = Uint8Array.from([FLAG_VERSION | FLAG_LEFT | FLAG_LEFT_EMBEDDED, 3, 2, 0, 7, 0])
    expect(new NodeMessage().read(parent).childEnd(0)).toBe(5)
    expectBad(() => decodeNode(parent), pre)
    expect(storedUsers([parent])(0, pre)).toEqual([])
  })

  it('a long value must be the message’s last 35 bytes; an empty message and a path longer than the message are rejected', () => {
    const n = leaf(4, rnd(40))
    const m = n.message()
    expectBad(() => new NodeMessage().read(Uint8Array.from([...m, 0])), /bad long value/)
    expectBad(() => decodeNode(Uint8Array.from([...m, 0])), /bad long value/)
    expectBad(() => new NodeMessage().read(new Uint8Array(0)), /empty/)
    // shared paths claiming 2^32 + 8 and 2^32 − 1 bits (0xff ‖ 9- and 5-byte VarInts; in bytes, `>> 3` would wrap)
    const path = (...varInt: number[]): Uint8Array =>
      Uint8Array.from([FLAG_VERSION | FLAG_SHARED_PATH, 0xff, ...varInt, 1, 2])
    expect(varIntAt(Uint8Array.from([0xff, 8, 0, 0, 0, 1, 0, 0, 0]), 0)).toBe(2 ** 32 + 8)
    expectBad(() => new NodeMessage().read(path(0xff, 8, 0, 0, 0, 1, 0, 0, 0)), /truncated shared path/)
    const huge = path(0xfe, 0xff, 0xff, 0xff, 0xff)
    expectBad(() => decodeNode(huge), /truncated shared path/)
    expectBad(() => new NodeMessage().read(m, 3, 3), /empty/)
  })
})

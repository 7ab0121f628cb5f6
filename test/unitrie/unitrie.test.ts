import { describe, it, expect } from 'vitest'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { EMPTY_TRIE_HASH, keccak256 } from '../../src/crypto/keccak.js'
import {
  MemoryTrieNodeStore,
  Unitrie,
  bitsToBytes,
  bytesToBits,
  decodeNode,
  encodeVarInt,
} from '../../src/unitrie/unitrie.js'
import { unitrieFromEntries } from '../../src/unitrie/unitrie-bulk.js'
import { countingStore } from '../helpers/counting-store.js'
import { seededRandom } from '../helpers/seeded.js'

function randomBytes(r: (n: number) => number, n: number): Uint8Array {
  const b = new Uint8Array(n)
  for (let i = 0; i < n; i++) b[i] = r(256)
  return b
}

const hex = (b: Uint8Array): string => bytesToHex(b)
const b = (...xs: number[]): Uint8Array => Uint8Array.from(xs)

function indexOfBytes(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer
    return i
  }
  return -1
}

/** Random keys drawn from a small alphabet of prefixes so that keys share prefixes and nest. */
function randomKey(r: (n: number) => number): Uint8Array {
  if (r(10) < 3) return randomBytes(r, 1 + r(3))
  const prefix = [b(0), b(0, 1), b(0x80), b(0x12, 0x34)][r(4)]!
  const tail = randomBytes(r, r(6))
  const k = new Uint8Array(prefix.length + tail.length)
  k.set(prefix)
  k.set(tail, prefix.length)
  return k
}

function randomValue(r: (n: number) => number): Uint8Array {
  const x = r(10)
  const len = x < 1 ? 0 : x < 8 ? 1 + r(32) : 33 + r(100)
  return randomBytes(r, len)
}

describe('Unitrie basics', () => {
  it('empty trie hash is EMPTY_TRIE_HASH and its message is 0x40', () => {
    const t = Unitrie.empty()
    expect(hex(t.hash())).toBe('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')
    expect(t.hash()).toEqual(EMPTY_TRIE_HASH)
    expect(hex(t.toMessage())).toBe('0x40')
    expect(t.get(b(1))).toBeUndefined()
    expect(t.getNodes(b(1))).toBeUndefined()
  })

  it('serializes a single leaf: flags|path|value', () => {
    const t = Unitrie.empty().put(b(0x80), b(1, 2, 3))
    // 0x50 = version + shared path; 07 = 8 bits - 1; 80 = the bits; then the value
    expect(hex(t.toMessage())).toBe('0x500780010203')
    expect(t.hash()).toEqual(keccak256(t.toMessage()))
  })

  it('embeds small terminal children and writes childrenSize as a VarInt', () => {
    const t = Unitrie.empty()
      .put(b(0x80), b(1, 2, 3))
      .put(b(0x81), b(4))
    // 5f: version|path|left|right|leftEmb|rightEmb; 06 80: 7-bit path 1000000;
    // 04 40010203 (left leaf), 02 4004 (right leaf), 06 = childrenSize (4 + 2)
    expect(hex(t.toMessage())).toBe('0x5f0680044001020302400406')
  })

  it('stores long values (> 32 B) as keccak(value) ‖ uint24 length and sets flag 0x20', () => {
    const v = new Uint8Array(40).fill(7)
    const t = Unitrie.empty().put(b(0xaa), v)
    const m = t.toMessage()
    expect(m[0]).toBe(0x70) // 0x40 | 0x20 long | 0x10 path
    expect(hex(m.subarray(3, 35))).toBe(hex(keccak256(v)))
    expect(hex(m.subarray(35))).toBe('0x000028')
    expect(t.get(b(0xaa))).toEqual(v)
    expect(t.getValueLength(b(0xaa))).toBe(40)
    expect(t.getValueHash(b(0xaa))).toEqual(keccak256(v))
    // exactly 32 bytes is still a short value
    const t32 = Unitrie.empty().put(b(0xaa), new Uint8Array(32).fill(1))
    expect(t32.toMessage()[0]).toBe(0x50)
    expect(t32.toMessage().length).toBe(3 + 32)
  })

  it('long values count in the parent childrenSize (referenceSize includes the external value)', () => {
    const v = new Uint8Array(100).fill(9)
    const t = Unitrie.empty().put(b(0x00), v).put(b(0x80), b(1))
    const root = decodeNode(t.toMessage())
    // left child message: 40 + 32 + 3 = 36 bytes (no path: the split consumes bit 0... the rest 7 bits)
    const left = root.child(0)!
    const right = root.child(1)!
    expect(root.childrenSize()).toBe(left.message().length + 100 + right.message().length)
  })

  it('uses the 0xff + VarInt path prefix outside 1..32 and 160..382 bits, and 1 byte inside', () => {
    // single keys: path = the whole key
    const k5 = new Uint8Array(5).fill(0xf0) // 40 bits -> 0xff, 0x28
    expect(hex(Unitrie.empty().put(k5, b(1)).toMessage().subarray(0, 3))).toBe('0x50ff28')
    const k20 = new Uint8Array(20).fill(0x0f) // 160 bits -> 160-128 = 0x20
    expect(hex(Unitrie.empty().put(k20, b(1)).toMessage().subarray(0, 2))).toBe('0x5020')
    const k31 = new Uint8Array(31).fill(1) // 248 bits -> 0x78
    expect(hex(Unitrie.empty().put(k31, b(1)).toMessage().subarray(0, 2))).toBe('0x5078')
    const k48 = new Uint8Array(48).fill(1) // 384 bits -> 0xff fd 8001
    expect(hex(Unitrie.empty().put(k48, b(1)).toMessage().subarray(0, 5))).toBe('0x50fffd8001')
    const k4 = new Uint8Array(4).fill(1) // 32 bits -> 0x1f
    expect(hex(Unitrie.empty().put(k4, b(1)).toMessage().subarray(0, 2))).toBe('0x501f')
  })

  it('VarInt is Bitcoin CompactSize (little endian)', () => {
    expect(hex(encodeVarInt(252))).toBe('0xfc')
    expect(hex(encodeVarInt(253))).toBe('0xfdfd00')
    expect(hex(encodeVarInt(0x1234))).toBe('0xfd3412')
    expect(hex(encodeVarInt(0x10000))).toBe('0xfe00000100')
  })

  it('bits helpers round-trip MSB first', () => {
    const k = b(0b10100000, 0xff)
    const bits = bytesToBits(k)
    expect(Array.from(bits.subarray(0, 4))).toEqual([1, 0, 1, 0])
    expect(bitsToBytes(bits)).toEqual(k)
  })

  it('embeds a terminal child whose message is exactly 44 B, hashes one of 45 B', () => {
    const v32 = new Uint8Array(32).fill(3)
    const right = b(0x80)
    // left key of 9 bytes: after the root split its path is 71 bits -> ff 47 + 9 bytes = 11 B;
    // message = 1 + 11 + 32 = 44 -> embedded
    const k9 = new Uint8Array(9)
    const t9 = Unitrie.empty().put(k9, v32).put(right, b(1))
    const m9 = t9.toMessage()
    expect(m9[0]! & 0x0a).toBe(0x0a) // left present + embedded
    expect(m9[1]).toBe(44) // embedded length byte
    // left key of 10 bytes: 79 bits -> 12 B path -> 45 B message -> by hash
    const k10 = new Uint8Array(10)
    const t10 = Unitrie.empty().put(k10, v32).put(right, b(1))
    const m10 = t10.toMessage()
    expect(m10[0]! & 0x0a).toBe(0x08) // left present, not embedded
    const leftMsg = t10.getNodes(k10)![0]!
    expect(leftMsg.length).toBe(45)
    expect(hex(m10.subarray(1, 33))).toBe(hex(keccak256(leftMsg)))
    // non-terminal nodes are never embedded, however small
    const t3 = Unitrie.empty().put(b(0x00), b(1)).put(b(0x00, 0x01), b(2)).put(b(0x80), b(3))
    const m3 = t3.toMessage()
    expect(m3[0]! & 0x0a).toBe(0x08)
  })
})

describe('Unitrie vs Map (property style)', () => {
  for (const seed of [1, 2, 3, 42, 1337]) {
    it(`random put/get/delete sequence, seed ${seed}`, () => {
      const r = seededRandom(seed)
      const ref = new Map<string, Uint8Array>()
      let t = Unitrie.empty()
      const snapshots: Array<{ trie: Unitrie; map: Map<string, Uint8Array>; hash: string }> = []
      for (let step = 0; step < 600; step++) {
        if (r(10) < 7 || ref.size === 0) {
          const k = randomKey(r)
          const v = randomValue(r)
          t = t.put(k, v)
          if (v.length === 0) ref.delete(hex(k))
          else ref.set(hex(k), v)
        } else {
          // delete an existing key, or a random (probably missing) one
          const keys = [...ref.keys()]
          const k = r(10) < 8 ? hexToBytes(keys[r(keys.length)] as `0x${string}`) : randomKey(r)
          t = t.delete(k)
          ref.delete(hex(k))
        }
        if (step % 50 === 0) snapshots.push({ trie: t, map: new Map(ref), hash: hex(t.hash()) })
      }
      // every key reads back
      for (const [k, v] of ref) expect(t.get(hexToBytes(k as `0x${string}`))).toEqual(v)
      // some absent keys are absent
      for (let i = 0; i < 50; i++) {
        const k = randomKey(r)
        expect(t.get(k)).toEqual(ref.get(hex(k)))
      }
      // enumeration matches the map, in ascending key order
      const listed = [...t.entries()].map(([k, v]) => [hex(k), hex(v)])
      const expected = [...ref.entries()]
        .map(([k, v]) => [k, hex(v)])
        .sort((a, c) => {
          const ka = Buffer.from(a[0]!.slice(2), 'hex')
          const kc = Buffer.from(c[0]!.slice(2), 'hex')
          return Buffer.compare(ka, kc)
        })
      expect(listed).toEqual(expected)
      // the hash is canonical: rebuilding from the map in another order gives the same root
      const shuffled = [...ref.entries()].sort(() => r(2) - 0.5)
      const rebuilt = Unitrie.fromEntries(shuffled.map(([k, v]) => [hexToBytes(k as `0x${string}`), v] as const))
      expect(hex(rebuilt.hash())).toBe(hex(t.hash()))
      // old roots are still readable and unchanged
      for (const s of snapshots) {
        expect(hex(s.trie.hash())).toBe(s.hash)
        for (const [k, v] of s.map) expect(s.trie.get(hexToBytes(k as `0x${string}`))).toEqual(v)
        expect([...s.trie.entries()].length).toBe(s.map.size)
      }
      // deleting everything returns the empty trie
      let e = t
      for (const k of ref.keys()) e = e.delete(hexToBytes(k as `0x${string}`))
      expect(e.isEmpty).toBe(true)
      expect(e.hash()).toEqual(EMPTY_TRIE_HASH)
    })
  }

  it('put of an identical value returns the same trie; delete of a missing key too', () => {
    const t = Unitrie.empty().put(b(1, 2), b(3)).put(b(1, 3), b(4))
    expect(t.put(b(1, 2), b(3))).toBe(t)
    expect(t.delete(b(9, 9))).toBe(t)
    expect(t.delete(b(1))).toBe(t) // prefix of keys but no value
  })

  it('an empty value deletes', () => {
    const t = Unitrie.empty().put(b(1), b(3)).put(b(2), b(4))
    expect(hex(t.put(b(1), new Uint8Array(0)).hash())).toBe(hex(Unitrie.empty().put(b(2), b(4)).hash()))
  })

  it('keys that are prefixes of other keys keep values at inner nodes', () => {
    const acct = new Uint8Array(31).fill(0x11)
    const marker = new Uint8Array(32).fill(0x11)
    marker[31] = 0
    const code = marker.slice()
    code[31] = 0x80
    const t = Unitrie.empty()
      .put(acct, b(0xc2, 0x80, 0x00))
      .put(marker, b(1))
      .put(code, b(0x60, 0x00))
    expect(t.get(acct)).toEqual(b(0xc2, 0x80, 0x00))
    expect(t.get(marker)).toEqual(b(1))
    expect(t.get(code)).toEqual(b(0x60, 0x00))
    expect([...t.keys(acct)].map(hex)).toEqual([acct, marker, code].map(hex))
    expect([...t.keys(marker)].map(hex)).toEqual([hex(marker)])
  })

  it('deleteRecursive removes a node with its subtree', () => {
    const acct = new Uint8Array(31).fill(0x22)
    const other = new Uint8Array(31).fill(0x23)
    const sub1 = new Uint8Array(32).fill(0x22)
    sub1[31] = 0
    const sub2 = new Uint8Array(40).fill(0x22)
    sub2[31] = 0
    const base = Unitrie.empty().put(other, b(5))
    const t = base.put(acct, b(1)).put(sub1, b(1)).put(sub2, b(2))
    const d = t.deleteRecursive(acct)
    expect(d.get(acct)).toBeUndefined()
    expect(d.get(sub1)).toBeUndefined()
    expect(d.get(sub2)).toBeUndefined()
    expect(hex(d.hash())).toBe(hex(base.hash()))
  })
})

describe('Unitrie.getNodes (proof path)', () => {
  it('returns the nodes leaf first, root last, and each parent commits to its child', () => {
    const r = seededRandom(7)
    let t = Unitrie.empty()
    const keys: Uint8Array[] = []
    for (let i = 0; i < 300; i++) {
      const k = randomBytes(r, 1 + r(4))
      keys.push(k)
      t = t.put(k, randomBytes(r, 1 + r(60)))
    }
    let sawHashRef = false
    let sawEmbedded = false
    for (const k of keys.slice(0, 100)) {
      const nodes = t.getNodes(k)!
      expect(nodes).toBeDefined()
      expect(nodes.length).toBeGreaterThan(0)
      // root last
      expect(hex(keccak256(nodes[nodes.length - 1]!))).toBe(hex(t.hash()))
      // leaf first: it carries the value for k (long values only by hash)
      const leafNode = decodeNode(nodes[0]!)
      expect(leafNode.getValueHash()).toEqual(keccak256(t.get(k)!))
      // chain: every parent contains its child's hash, or embeds its message
      for (let i = 0; i + 1 < nodes.length; i++) {
        const child = nodes[i]!
        const parent = nodes[i + 1]!
        const byHash = indexOfBytes(parent, keccak256(child)) >= 0
        const embeddedForm = new Uint8Array(child.length + 1)
        embeddedForm[0] = child.length
        embeddedForm.set(child, 1)
        const embedded = indexOfBytes(parent, embeddedForm) >= 0
        expect(byHash || embedded).toBe(true)
        if (byHash) sawHashRef = true
        if (embedded) sawEmbedded = true
      }
    }
    expect(sawHashRef).toBe(true)
    expect(sawEmbedded).toBe(true)
    expect(t.getNodes(b(0xde, 0xad, 0xbe, 0xef, 0x01, 0x02))).toBeUndefined()
  })

  it('getNodes for a single-key trie is just the root', () => {
    const t = Unitrie.empty().put(b(0x80), b(1))
    expect(t.getNodes(b(0x80))!.map(hex)).toEqual([hex(t.toMessage())])
  })
})

describe('Unitrie persistence', () => {
  function buildRandom(seed: number, n: number): Unitrie {
    const r = seededRandom(seed)
    let t = Unitrie.empty()
    for (let i = 0; i < n; i++) t = t.put(randomKey(r), randomValue(r))
    return t
  }

  it('saves node messages under their hash and long values under keccak(value); all decode and re-encode identically', () => {
    const t = buildRandom(11, 300)
    const store = new MemoryTrieNodeStore()
    t.save(store)
    const longValueKeys = new Set<string>()
    for (const [, v] of t.entries()) if (v.length > 32) longValueKeys.add(hex(keccak256(v)).slice(2))
    let nodes = 0
    for (const [k, msg] of store.map) {
      expect(k).toBe(hex(keccak256(msg)).slice(2))
      if (longValueKeys.has(k)) continue
      const n = decodeNode(msg, store)
      // drop every cache taken from the message so that it is really re-serialized
      n._msg = undefined
      n._childrenSize = undefined
      n._sideSize = [undefined, undefined]
      expect(hex(n.message())).toBe(hex(msg))
      nodes++
    }
    expect(nodes).toBeGreaterThan(10)
    expect(longValueKeys.size).toBeGreaterThan(5)
  })

  it('save + fromRootHash reloads lazily and stays equal to the in-memory trie under further puts', () => {
    const t = buildRandom(12, 400)
    const store = new MemoryTrieNodeStore()
    const root = t.save(store)
    expect(root).toEqual(t.hash())
    const counting = countingStore(store)
    const loaded = Unitrie.fromRootHash(root, counting)
    expect(counting.gets).toBe(1) // only the root so far
    expect(loaded.hash()).toEqual(root)
    // same entries
    expect([...loaded.entries()].map(([k, v]) => hex(k) + hex(v))).toEqual(
      [...t.entries()].map(([k, v]) => hex(k) + hex(v)),
    )
    // modify both copies identically
    const r = seededRandom(99)
    let a = t
    let l = Unitrie.fromRootHash(root, store)
    for (let i = 0; i < 200; i++) {
      const k = randomKey(r)
      const v = randomValue(r)
      if (r(4) < 1) {
        a = a.delete(k)
        l = l.delete(k)
      } else {
        a = a.put(k, v)
        l = l.put(k, v)
      }
      if (i % 40 === 0) expect(hex(l.hash())).toBe(hex(a.hash()))
    }
    expect(hex(l.hash())).toBe(hex(a.hash()))
    // saving the modified lazily-loaded trie writes only new nodes, and reloads again
    const before = store.size
    l.save(store)
    expect(store.size).toBeGreaterThan(before)
    const again = Unitrie.fromRootHash(l.hash(), store)
    expect([...again.entries()].length).toBe([...a.entries()].length)
  })

  it('a lazily loaded trie only fetches the nodes it needs for a point update', () => {
    let t = Unitrie.empty()
    const r = seededRandom(5)
    for (let i = 0; i < 2000; i++) t = t.put(randomBytes(r, 32), randomBytes(r, 20))
    const store = new MemoryTrieNodeStore()
    t.save(store)
    const counting = countingStore(store)
    const l = Unitrie.fromRootHash(t.hash(), counting)
    const k = randomBytes(r, 32)
    const l2 = l.put(k, b(1, 2, 3))
    expect(hex(l2.hash())).toBe(hex(t.put(k, b(1, 2, 3)).hash()))
    // depth of a 2000-key binary trie is ~11-20; never anywhere near loading the whole trie
    expect(counting.gets).toBeLessThan(60)
  })

  it('long values are saved under their hash and fetched on demand', () => {
    const v = new Uint8Array(500).map((_, i) => i & 0xff)
    const t = Unitrie.empty().put(b(1), v).put(b(2), b(2))
    const store = new MemoryTrieNodeStore()
    t.save(store)
    expect(store.get(keccak256(v))).toEqual(v)
    const l = Unitrie.fromRootHash(t.hash(), store)
    expect(l.getValueLength(b(1))).toBe(500)
    expect(l.get(b(1))).toEqual(v)
  })

  it('fromRootHash(EMPTY_TRIE_HASH) is the empty trie; a missing root throws', () => {
    const store = new MemoryTrieNodeStore()
    expect(Unitrie.fromRootHash(EMPTY_TRIE_HASH, store).isEmpty).toBe(true)
    expect(() => Unitrie.fromRootHash(new Uint8Array(32).fill(1), store)).toThrow()
  })

  it('many keys: 20 000 puts keep every entry and give the root of the one-pass build', () => {
    // (how fast this is belongs to the bench, not to a test: no wall-time assertion)
    const r = seededRandom(3)
    const keys = Array.from({ length: 20000 }, () => randomBytes(r, 32))
    let t = Unitrie.empty()
    for (const k of keys) t = t.put(k, k.subarray(0, 20))
    for (const k of keys.slice(0, 500)) expect(t.get(k)).toEqual(k.subarray(0, 20))
    expect([...t.entries()]).toHaveLength(20000)
    const bulk = unitrieFromEntries(keys.map((k): [Uint8Array, Uint8Array] => [k, k.subarray(0, 20)]))
    expect(Buffer.from(t.hash()).toString('hex')).toBe(Buffer.from(bulk.hash()).toString('hex'))
  })
})

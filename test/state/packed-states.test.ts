/**
 * The in-memory registry's packing (src/state/packed-states.ts, UnitrieStateDB.pack): every kept root becomes a
 * lazy trie over a packed arena and reads the same; roots the registry no longer keeps are left out when the arena
 * is rebuilt; a state built into an arena (a state file's) is adopted instead of copied. Per block
 * (UnitrieStateDB.packBlock) the new states are saved ahead of the pack and a rebuild advances a slice at a time.
 */
import { describe, expect, it } from 'vitest'
import { keccak256 } from '../../src/crypto/keccak.js'
import { unitrieFromEntries } from '../../src/unitrie/unitrie-bulk.js'
import { ArenaTrieStore } from '../../src/unitrie/trie-arena.js'
import { Unitrie } from '../../src/unitrie/unitrie.js'
import { PackedStates, REBUILD_NODES_PER_BLOCK } from '../../src/state/packed-states.js'
import { UnitrieStateDB } from '../../src/state/unitrie-state-db.js'

const key = (i: number): Uint8Array => keccak256(Uint8Array.of(i >> 8, i & 0xff))
/** A long value (> 32 B: stored under its own hash) for some keys, a short one for the others. */
const value = (i: number, v: number): Uint8Array =>
  i % 7 === 0 ? new Uint8Array(40).fill(v & 0xff) : Uint8Array.of(v & 0xff, (v >> 8) & 0xff, 1)

/** `count` keys set to `v`; each version on top of `base`. */
function version(base: Unitrie, from: number, count: number, v: number): Unitrie {
  let t = base
  for (let i = from; i < from + count; i++) t = t.put(key(i), value(i, v))
  return t
}

describe('packed states', () => {
  it('packs every kept root into the arena; reads, hashes and later writes are unchanged', () => {
    const db = new UnitrieStateDB()
    db.maxRoots = 4
    let t = version(Unitrie.empty(), 0, 300, 1)
    const states: Unitrie[] = []
    for (let v = 2; v < 6; v++) {
      t = version(t, v * 10, 20, v)
      db.register(t)
      states.push(t)
    }
    const preview = version(t, 500, 3, 9)
    db.registerPreview(preview)
    const packed = db.pack(t)
    const arena = packed.store!
    expect(arena.size).toBeGreaterThan(300)
    for (const s of [...states, preview]) {
      const lazy = db.lookup(s.hash())!
      expect(lazy).not.toBe(s)
      expect(lazy.store).toBe(arena)
      expect(lazy.hash()).toEqual(s.hash())
      for (const i of [0, 7, 20, 35, 49, 299, 500]) expect(lazy.get(key(i))).toEqual(s.get(key(i)))
    }
    // a write on a packed trie gives the same root as on the object trie
    const last = db.lookup(t.hash())!
    expect(last.put(key(1), value(1, 77)).hash()).toEqual(t.put(key(1), value(1, 77)).hash())
  })

  it('a rebuild keeps what the kept roots reach and drops the roots the registry forgot', () => {
    const db = new UnitrieStateDB()
    db.maxRoots = 2
    // rebuild as soon as the superseded part may exceed the live one
    db.packed = new PackedStates(0)
    const first = version(Unitrie.empty(), 0, 200, 1)
    let t = first
    db.register(t)
    db.pack(t)
    expect(db.packed.store!.get(first.hash())).toBeDefined()
    for (let round = 0; round < 4; round++) {
      for (let v = 0; v < 3; v++) {
        t = version(t, 0, 200, 100 + round * 10 + v)
        db.register(t)
      }
      db.pack(t)
    }
    expect(db.packed.rebuilds).toBeGreaterThan(0)
    const arena = db.packed.store!
    expect(db.roots.size).toBe(2)
    expect(arena.get(first.hash())).toBeUndefined()
    for (const [, trie] of db.roots) {
      expect(trie.store).toBe(arena)
      expect(arena.get(trie.hash())).toBeDefined()
    }
    const live = db.lookup(t.hash())!
    for (const i of [0, 7, 14, 199]) expect(live.get(key(i))).toEqual(t.get(key(i)))
    expect(db.lookup(first.hash())).toBeUndefined()
  })

  it('adopts the arena a state was built into', () => {
    const built = unitrieFromEntries(Array.from({ length: 100 }, (_, i) => [key(i), value(i, 3)] as const))
    expect(built.store).toBeInstanceOf(ArenaTrieStore)
    const db = new UnitrieStateDB()
    const next = built.put(key(1), value(1, 4))
    db.register(built)
    db.register(next)
    const packed = db.pack(next)
    expect(packed.store).toBe(built.store)
    expect(db.lookup(next.hash())!.get(key(1))).toEqual(value(1, 4))
    expect(db.lookup(built.hash())!.get(key(1))).toEqual(value(1, 3))
  })

  it('per block: states still kept at the next pack are saved ahead of it, the others are left to it', () => {
    const db = new UnitrieStateDB()
    db.maxRoots = 3
    const a = version(Unitrie.empty(), 0, 100, 1)
    db.register(a)
    // forgotten before the next pack (3 roots kept, 10 blocks to go): not saved
    expect(db.packBlock(a, 10)).toBe(false)
    expect(db.packed?.store).toBeUndefined()
    const b = version(a, 0, 5, 2)
    db.register(b)
    expect(db.packBlock(b, 2)).toBe(false)
    const arena = db.packed!.store!
    expect(arena.get(b.hash())).toBeDefined()
    expect(arena.get(a.hash())).toBeUndefined()
    // the pack saves the rest and turns every kept root into a lazy trie over the arena
    db.pack(b)
    expect(arena.get(a.hash())).toBeDefined()
    for (const s of [a, b]) {
      const lazy = db.lookup(s.hash())!
      expect(lazy.store).toBe(arena)
      for (const i of [0, 3, 7, 99]) expect(lazy.get(key(i))).toEqual(s.get(key(i)))
    }
  })

  it('a rebuild copies a slice per block; the kept tries move to the fresh arena once it is complete', () => {
    const db = new UnitrieStateDB()
    db.maxRoots = 3
    db.packed = new PackedStates(0)
    let t = version(Unitrie.empty(), 0, 3000, 1)
    db.register(t)
    db.pack(t)
    expect(db.packed.rebuilding).toBe(true)
    const old = db.packed.store!
    const states = [t]
    let blocks = 0
    for (let moved = false; !moved; blocks++) {
      t = version(t, blocks * 3, 3, 50 + blocks)
      db.register(t)
      states.push(t)
      moved = db.packBlock(t, 1)
      if (!moved) expect(db.packed.store).toBe(old)
      expect(blocks).toBeLessThan(100)
    }
    // more nodes than one slice: spread over several blocks
    expect(old.size).toBeGreaterThan(2 * REBUILD_NODES_PER_BLOCK)
    expect(blocks).toBeGreaterThan(1)
    expect(db.packed.rebuilding).toBe(false)
    expect(db.packed.rebuilds).toBe(1)
    const fresh = db.packed.store!
    expect(fresh).not.toBe(old)
    // every kept root, including those of the blocks mined during the rebuild, reads the same over the fresh arena
    expect(db.roots.size).toBe(3)
    for (const [, trie] of db.roots) expect(trie.store).toBe(fresh)
    for (const s of states.slice(-3)) {
      const lazy = db.lookup(s.hash())!
      expect(lazy.hash()).toEqual(s.hash())
      for (const i of [0, 3, 7, 14, 2999]) expect(lazy.get(key(i))).toEqual(s.get(key(i)))
    }
    // the first state, copied when the rebuild began, is forgotten by now
    expect(db.lookup(states[0]!.hash())).toBeUndefined()
    // mining goes on over the fresh arena
    const next = version(db.lookup(t.hash())!, 0, 2, 99)
    expect(next.hash()).toEqual(version(t, 0, 2, 99).hash())
  })
})

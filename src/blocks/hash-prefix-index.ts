/**
 * A multimap from a 30-bit hash prefix (src/util/hash-prefix.ts) to numbers, in two typed arrays
 * (docs/architecture.md#storage): the in-memory block backend's block-hash and transaction-hash indexes, and the
 * transaction index of the decoded blocks (src/blocks/cached-tx-index.ts). A JS `Map` costs 28-56 B per entry on the
 * heap, its table is traced by every full GC (time that grows with the chain) and it stops at 2^24 entries
 * (~8 M blocks of the transaction index); this table costs 12 B per slot, 16-32 B per entry (at most three
 * quarters of the slots used), holds nothing the GC traces and grows by doubling.
 *
 * Open addressing with linear probing; an entry is removed by shifting the entries after it back, so no slot is
 * ever a tombstone. Several entries may share a key (prefixes of different hashes collide), and the same key and
 * value may be stored twice.
 */

/** Key of an empty slot (keys are 30-bit prefixes, never negative). */
const EMPTY = -1

/** Slots of a new table (a power of two). */
const INITIAL_SLOTS = 1024

/** The slot a key probes first: its low bits (keys are prefixes of hashes, uniformly spread). */
function home(key: number, mask: number): number {
  return key & mask
}

/** See the module documentation. */
export class HashPrefixIndex {
  private keys = new Int32Array(INITIAL_SLOTS).fill(EMPTY)
  private values = new Float64Array(INITIAL_SLOTS)
  private used = 0

  /** Entries held. */
  get size(): number {
    return this.used
  }

  /** Bytes of its two arrays (12 per slot), for memory reports. */
  get byteSize(): number {
    return this.keys.byteLength + this.values.byteLength
  }

  /**
   * Adds `value` under `key`.
   * @param key a 30-bit prefix (0 … 2^30 − 1)
   * @param value any number that is not NaN (a block number, a packed transaction position)
   * @throws RangeError for a key outside 0 … 2^30 − 1
   */
  add(key: number, value: number): void {
    if (!(key >= 0 && key < 2 ** 30 && Number.isInteger(key))) throw new RangeError(`bad hash prefix ${key}`)
    if ((this.used + 1) * 4 > this.keys.length * 3) this.resize(this.keys.length * 2)
    this.insert(key, value)
    this.used++
  }

  /** The values stored under `key`, ascending, a value stored twice twice (empty when there are none). */
  get(key: number): number[] {
    const out: number[] = []
    const mask = this.keys.length - 1
    for (let i = home(key, mask); this.keys[i] !== EMPTY; i = (i + 1) & mask) {
      if (this.keys[i] === key) out.push(this.values[i]!)
    }
    return out.length > 1 ? out.sort((a, b) => a - b) : out
  }

  /**
   * The first value stored under `key` that `match` accepts, in probe order (no array allocated: the lookup of a
   * table whose caller compares a full key, as src/blocks/address-index-postings.ts does).
   * @returns the value, or −1 when none matches (callers store non-negative values)
   */
  find(key: number, match: (value: number) => boolean): number {
    const mask = this.keys.length - 1
    for (let i = home(key, mask); this.keys[i] !== EMPTY; i = (i + 1) & mask) {
      if (this.keys[i] === key && match(this.values[i]!)) return this.values[i]!
    }
    return -1
  }

  /** Whether an entry `key` → `value` is held. */
  has(key: number, value: number): boolean {
    const mask = this.keys.length - 1
    for (let i = home(key, mask); this.keys[i] !== EMPTY; i = (i + 1) & mask) {
      if (this.keys[i] === key && this.values[i] === value) return true
    }
    return false
  }

  /** Removes one entry `key` → `value`; false when there is none. */
  delete(key: number, value: number): boolean {
    const keys = this.keys
    const mask = keys.length - 1
    let i = home(key, mask)
    for (; keys[i] !== EMPTY; i = (i + 1) & mask) {
      if (keys[i] === key && this.values[i] === value) break
    }
    if (keys[i] === EMPTY) return false
    // backward shift: move each later entry of the run into the hole when its home does not lie in (hole, j]
    let hole = i
    for (let j = (i + 1) & mask; keys[j] !== EMPTY; j = (j + 1) & mask) {
      const h = home(keys[j]!, mask)
      const fits = hole <= j ? h <= hole || h > j : h <= hole && h > j
      if (fits) {
        keys[hole] = keys[j]!
        this.values[hole] = this.values[j]!
        hole = j
      }
    }
    keys[hole] = EMPTY
    this.used--
    return true
  }

  private insert(key: number, value: number): void {
    const mask = this.keys.length - 1
    let i = home(key, mask)
    while (this.keys[i] !== EMPTY) i = (i + 1) & mask
    this.keys[i] = key
    this.values[i] = value
  }

  private resize(slots: number): void {
    const { keys, values } = this
    this.keys = new Int32Array(slots).fill(EMPTY)
    this.values = new Float64Array(slots)
    for (let i = 0; i < keys.length; i++) if (keys[i] !== EMPTY) this.insert(keys[i]!, values[i]!)
  }
}

/**
 * A cache's doorkeeper (the admission filter of TinyLFU): it remembers which keys were asked for recently, by a
 * 32-bit hash in a fixed table, so that a cache can admit an entry only on its key's second request. Requests that
 * never repeat (a new address or amount each time) then never enter the cache: no entry to build and evict, nothing
 * for the garbage collector to promote and sweep (docs/architecture.md#performance-rules).
 *
 * The table is direct-mapped: a key's hash sits in the slot it picks (its low bits, folded with its high half) until
 * a later key takes that slot. A collision of two keys' hashes admits a key on its first request (harmless: the
 * cache is then as it would be without a doorkeeper); a slot taken over forgets a key, whose next request is again
 * a first one. (lru-cache, the node's cache library, has no admission policy.)
 */
export class Doorkeeper {
  private readonly slots: Int32Array
  private readonly mask: number

  /**
   * @param slots how many keys it remembers at most: a power of two (4 bytes each)
   * @throws RangeError when `slots` is not a power of two of at least 2
   */
  constructor(slots: number) {
    if (!Number.isInteger(slots) || slots < 2 || (slots & (slots - 1)) !== 0) {
      throw new RangeError(`Doorkeeper: slots must be a power of two, got ${slots}`)
    }
    this.slots = new Int32Array(slots)
    this.mask = slots - 1
  }

  /**
   * Records a request for `key`.
   * @returns true when `key` was requested before (and not forgotten since): the cache may admit it
   */
  seen(key: string): boolean {
    // FNV-1a over the UTF-16 code units; | 1 keeps 0 for an empty slot
    let h = 0x811c9dc5
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
    h |= 1
    const slot = (h ^ (h >>> 16)) & this.mask
    if (this.slots[slot] === h) return true
    this.slots[slot] = h
    return false
  }
}

/** A trie node store for tests that counts the reads it passes on. */
import type { TrieNodeStore } from '../../src/unitrie/unitrie.js'

/**
 * `store` behind a counter of its reads.
 * @returns a store whose `gets` is the number of `get` calls so far
 */
export function countingStore(store: TrieNodeStore): TrieNodeStore & { gets: number } {
  const counting = {
    gets: 0,
    get: (h: Uint8Array) => {
      counting.gets++
      return store.get(h)
    },
    put: (h: Uint8Array, d: Uint8Array) => store.put(h, d),
  }
  return counting
}

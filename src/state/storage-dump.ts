/**
 * Storage dumps of one address read straight from a Unitrie, with REAL slot keys (the Unitrie keeps the slot in
 * the key); used by `UnitrieStateManager.dumpStorage` / `dumpStorageRange` (src/state/unitrie-state-manager.ts).
 */
import type { StorageDump, StorageRange } from '@ethereumjs/common'
import { slotFromStorageKey } from '../rsk/trie-keys.js'
import type { Unitrie } from '../unitrie/unitrie.js'
import { toKey } from '../util/bytes.js'
import { SECURE_KEY_SIZE, type Rec } from './address-record.js'

/**
 * Every storage cell of the address of `r` in `t`: 0x-prefixed 32-byte slot → 0x-prefixed value without leading
 * zeros (the storage marker itself is skipped).
 */
export function dumpRecordStorage(t: Unitrie, r: Rec): StorageDump {
  const out: StorageDump = {}
  const prefixLen = r.storagePrefix.length
  for (const [k, v] of t.entries(r.storagePrefix)) {
    if (k.length <= prefixLen + SECURE_KEY_SIZE) continue // the marker itself
    out['0x' + toKey(slotFromStorageKey(k))] = '0x' + toKey(v)
  }
  return out
}

/**
 * Up to `limit` entries of `dump` (from {@link dumpRecordStorage}) in slot order starting at slot `startKey`;
 * `key` is the slot itself, `nextKey` the first slot left out (null when none).
 */
export function storageRangeOf(dump: StorageDump, startKey: bigint, limit: number): StorageRange {
  const all = Object.entries(dump)
    .map(([k, v]) => [BigInt(k), k, v] as const)
    .filter(([n]) => n >= startKey)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  const storage: StorageRange['storage'] = {}
  for (const [, k, v] of all.slice(0, limit)) storage[k] = { key: k as `0x${string}`, value: v as `0x${string}` }
  const next = all[limit]
  return { storage, nextKey: next ? next[1] : null }
}

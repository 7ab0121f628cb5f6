/**
 * Copying what a root reaches from one packed {@link ArenaTrieStore} into another, read straight from the stored
 * messages (RSKIP107 layout, docs/reference-rules.md#rule-unitrie-node) without decoding a node object per node:
 * the children kept by hash, the long values of the nodes and of their embedded children. Used to rebuild the
 * in-memory state's arena without the nodes no kept root reaches any more (src/state/packed-states.ts).
 */
import {
  FLAG_LEFT,
  FLAG_LEFT_EMBEDDED,
  FLAG_LONG_VALUE,
  FLAG_RIGHT,
  FLAG_RIGHT_EMBEDDED,
  FLAG_SHARED_PATH,
  readSharedPathLength,
  readVarInt,
} from './unitrie-codec.js'
import type { ArenaTrieStore } from './trie-arena.js'

/** Bytes before a record's message in its chunk: its hash (32 B) and length (4 B). */
const HEADER = 36
const SIDES = [
  [FLAG_LEFT, FLAG_LEFT_EMBEDDED],
  [FLAG_RIGHT, FLAG_RIGHT_EMBEDDED],
] as const

/**
 * Copies the node whose hash is `root` and everything it reaches (nodes kept by hash, long values) from `from` into
 * `to`; subtrees `to` holds already are skipped.
 * @throws Error when a node or long value is missing in `from`
 */
export function copyReachable(from: ArenaTrieStore, to: ArenaTrieStore, root: Uint8Array): void {
  const copy = new ReachableCopy(from, to)
  copy.add(root)
  copy.step(Number.POSITIVE_INFINITY)
}

/**
 * {@link copyReachable} in slices: roots are added at any time and {@link step} copies a bounded number of nodes
 * at a time, so a large copy can be spread over many blocks. `from` may grow meanwhile (its records never change).
 * A node is put into `to` before its children, so what a root reaches is complete in `to` only once {@link step}
 * reports that nothing is left.
 */
export class ReachableCopy {
  /** The stack: hashes to copy, each as bytes [at, at + 32) of a buffer. */
  private readonly buffers: Uint8Array[] = []
  private readonly offsets: number[] = []

  constructor(
    private readonly from: ArenaTrieStore,
    private readonly to: ArenaTrieStore,
  ) {}

  /** Queues `root` (a 32-byte node hash; the caller must not change it) and everything it reaches. */
  add(root: Uint8Array): void {
    this.buffers.push(root)
    this.offsets.push(0)
  }

  /**
   * Copies the queued nodes, at most `maxNodes` of them (each with its long values).
   * @returns whether everything queued so far is copied
   * @throws Error when a node or long value is missing in `from`
   */
  step(maxNodes: number): boolean {
    const { buffers, offsets } = this
    for (let n = 0; n < maxNodes && buffers.length > 0; n++) {
      const record = this.copy(buffers.pop()!, offsets.pop()!)
      if (record === undefined) continue
      const { chunk: m, start, end } = record
      const flags = m[start]!
      let pos = skipPath(m, start, flags)
      for (const [present, embedded] of SIDES) {
        if (!(flags & present)) continue
        if (flags & embedded) {
          // an embedded child is terminal: its long value, if any, is the last 35 bytes of its message
          const len = m[pos++]!
          if (m[pos]! & FLAG_LONG_VALUE) this.copy(m, pos + len - 35)
          pos += len
        } else {
          buffers.push(m)
          offsets.push(pos)
          pos += 32
        }
      }
      if (flags & (FLAG_LEFT | FLAG_RIGHT)) pos = readVarInt(m, pos)[1]
      if (flags & FLAG_LONG_VALUE) {
        if (pos + 35 !== end) throw new Error('Unitrie: bad long value encoding')
        this.copy(m, pos)
      }
    }
    return buffers.length === 0
  }

  /** Copies one record unless `to` has it; @returns where it is in `from`, or undefined when skipped. */
  private copy(buffer: Uint8Array, at: number): { chunk: Uint8Array; start: number; end: number } | undefined {
    const { from, to } = this
    if (to.locate(buffer, at) >= 0) return undefined
    const loc = from.locate(buffer, at)
    if (loc < 0) throw new Error(`Unitrie: missing node ${Buffer.from(buffer.subarray(at, at + 32)).toString('hex')}`)
    const chunk = from.chunkOf(loc)
    const start = from.startOf(loc)
    const end = from.endOf(loc)
    to.put(chunk.subarray(start - HEADER, start - HEADER + 32), chunk.subarray(start, end))
    return { chunk, start, end }
  }
}

/** The position after the flags and the shared path of the message starting at `start`. */
function skipPath(m: Uint8Array, start: number, flags: number): number {
  if (!(flags & FLAG_SHARED_PATH)) return start + 1
  const [bits, at] = readSharedPathLength(m, start + 1)
  return at + ((bits + 7) >> 3)
}

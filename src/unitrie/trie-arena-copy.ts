/**
 * Copying what a root reaches from one packed {@link ArenaTrieStore} into another, read straight from the stored
 * messages (RSKIP107 layout, docs/reference-rules.md#rule-unitrie-node) without decoding a node object per node:
 * the children kept by hash, the long values of the nodes and of their embedded children. Used to rebuild the
 * in-memory state's arena without the nodes no kept root reaches any more (src/state/packed-states.ts).
 */
import { FLAG_LEFT_EMBEDDED, FLAG_RIGHT_EMBEDDED, HASH_SIZE } from './unitrie-codec.js'
import { NodeMessage } from './node-message.js'
import type { ArenaTrieStore } from './trie-arena.js'

/**
 * Copies the node whose hash is `root` and everything it reaches (nodes kept by hash, long values) from `from` into
 * `to`; subtrees `to` holds already are skipped.
 * @throws Error when a node or long value is missing in `from`, or a message is malformed (truncated, pre-RSKIP107:
 *   src/unitrie/node-message.ts)
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
  /** The reader of the node being copied, and of its embedded children (src/unitrie/node-message.ts). */
  private readonly message = new NodeMessage()
  private readonly embedded = new NodeMessage()

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
   * @throws Error when a node or long value is missing in `from`, or a message is malformed
   */
  step(maxNodes: number): boolean {
    const { buffers, offsets } = this
    const { message, embedded } = this
    for (let n = 0; n < maxNodes && buffers.length > 0; n++) {
      const record = this.copy(buffers.pop()!, offsets.pop()!)
      if (record === undefined) continue
      const { chunk: m, start, end } = record
      const msg = message.read(m, start, end)
      const flags = msg.flags
      // children: an embedded one is read in place for its long value; one kept by hash is queued
      if (msg.leftAt >= 0) {
        if (!(flags & FLAG_LEFT_EMBEDDED)) this.queue(m, msg.leftAt)
        else if (embedded.read(m, msg.leftAt, msg.leftEnd).hasLongValue) this.copy(m, embedded.valueAt)
      }
      if (msg.rightAt >= 0) {
        if (!(flags & FLAG_RIGHT_EMBEDDED)) this.queue(m, msg.rightAt)
        else if (embedded.read(m, msg.rightAt, msg.rightEnd).hasLongValue) this.copy(m, embedded.valueAt)
      }
      if (msg.hasLongValue) this.copy(m, msg.valueAt)
    }
    return buffers.length === 0
  }

  /** Queues the hash at bytes [at, at + 32) of `buffer`. */
  private queue(buffer: Uint8Array, at: number): void {
    this.buffers.push(buffer)
    this.offsets.push(at)
  }

  /** Copies one record unless `to` has it; @returns where it is in `from`, or undefined when skipped. */
  private copy(buffer: Uint8Array, at: number): { chunk: Uint8Array; start: number; end: number } | undefined {
    const { from, to } = this
    if (to.locate(buffer, at) >= 0) return undefined
    const loc = from.locate(buffer, at)
    const hash = buffer.subarray(at, at + HASH_SIZE)
    if (loc < 0) throw new Error(`Unitrie: missing node ${Buffer.from(hash).toString('hex')}`)
    const chunk = from.chunkOf(loc)
    const start = from.startOf(loc)
    const end = from.endOf(loc)
    // (the record's hash is the one looked up)
    to.put(hash, chunk.subarray(start, end))
    return { chunk, start, end }
  }
}

/**
 * The index that finds the artifact for deployed code among many (the artifacts matcher): artifacts are grouped by
 * the length of their code without the metadata tail, then by the offset of their first masked byte, then by a hash
 * of the bytes before it; a lookup hashes one prefix per distinct offset of that length and compares the remaining
 * unmasked bytes of the few candidates.
 */
import { createHash } from 'node:crypto'
import { chainCodeShape, equalOutsideMasks, type CodeShape } from './bytecode-shape.js'
import type { ContractArtifact } from './contract-artifact.js'

/** One artifact in the index: what it names and the shape of its deployed code. */
export interface IndexedArtifact {
  artifact: ContractArtifact
  shape: CodeShape
}

interface Entry extends IndexedArtifact {
  /** the position in the order given to the index (lower wins a tie) */
  rank: number
  /** the offset of the first masked byte (`shape.end` when nothing is masked) */
  prefixEnd: number
}

function prefixKey(code: Uint8Array, end: number): string {
  return createHash('sha1').update(code.subarray(0, end)).digest('base64')
}

function sameTail(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number): boolean {
  if (a.length - aStart !== b.length - bStart) return false
  for (let i = 0; aStart + i < a.length; i++) if (a[aStart + i] !== b[bStart + i]) return false
  return true
}

/**
 * An immutable index over artifacts' deployed code (build a new one to change it).
 */
export class BytecodeIndex {
  /** stripped length → first masked offset → prefix hash → entries */
  private readonly byLength = new Map<number, Map<number, Map<string, Entry[]>>>()
  /** how many artifacts the index holds */
  readonly size: number

  /**
   * @param artifacts the artifacts in order of preference: among equally good matches the earlier one wins
   */
  constructor(artifacts: readonly IndexedArtifact[]) {
    artifacts.forEach((a, rank) => {
      const prefixEnd = a.shape.masks.length > 0 ? a.shape.masks[0] : a.shape.end
      const entry: Entry = { ...a, rank, prefixEnd }
      let byOffset = this.byLength.get(a.shape.end)
      if (!byOffset) this.byLength.set(a.shape.end, (byOffset = new Map()))
      let byPrefix = byOffset.get(prefixEnd)
      if (!byPrefix) byOffset.set(prefixEnd, (byPrefix = new Map()))
      const key = prefixKey(a.shape.code, prefixEnd)
      const list = byPrefix.get(key)
      if (list) list.push(entry)
      else byPrefix.set(key, [entry])
    })
    this.size = artifacts.length
  }

  /**
   * The artifact whose deployed code the runtime code is, up to the metadata tail and the artifact's masked bytes.
   * Among several matches the best is, in this order: the one whose metadata tail is byte-for-byte the code's
   * (identical contracts under different names differ only there), then the one with the fewest masked bytes (the
   * more exact), then the earliest in the order given to the constructor.
   * The code's end is first read as a metadata tail when it parses as one (bytecode-shape.ts metadataStart); when
   * that finds nothing and the code had such an end, the whole code is tried too.
   * @param runtimeCode the code at an address (eth_getCode), raw bytes
   * @returns the artifact, or undefined when none matches (also for empty code)
   */
  match(runtimeCode: Uint8Array): ContractArtifact | undefined {
    if (runtimeCode.length === 0 || this.size === 0) return undefined
    const stripped = chainCodeShape(runtimeCode)
    const found = this.best(stripped)
    if (found || stripped.end === runtimeCode.length) return found
    return this.best(chainCodeShape(runtimeCode, false))
  }

  private best(chain: CodeShape): ContractArtifact | undefined {
    const byOffset = this.byLength.get(chain.end)
    if (!byOffset) return undefined
    let best: Entry | undefined
    let bestTail = false
    for (const [prefixEnd, byPrefix] of byOffset) {
      const candidates = byPrefix.get(prefixKey(chain.code, prefixEnd))
      if (!candidates) continue
      for (const c of candidates) {
        if (!equalOutsideMasks(c.shape, chain, prefixEnd)) continue
        const tail = sameTail(c.shape.code, c.shape.end, chain.code, chain.end)
        if (
          !best ||
          (tail && !bestTail) ||
          (tail === bestTail &&
            (c.shape.maskedBytes < best.shape.maskedBytes ||
              (c.shape.maskedBytes === best.shape.maskedBytes && c.rank < best.rank)))
        ) {
          best = c
          bestTail = tail
        }
      }
    }
    return best?.artifact
  }
}

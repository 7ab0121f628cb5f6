/**
 * Normalising deployed bytecode for matching (the artifacts matcher, docs/architecture.md): hex decoding with
 * library-link placeholders, the Solidity metadata tail (CBOR, its length in the last 2 bytes, big-endian), and the
 * byte ranges that differ between an artifact and the code a chain holds (immutables, linked library addresses, a
 * library's own address, the metadata hash of contract code embedded by `new C()`).
 *
 * Pure functions over bytes: no chain, no file system.
 */

/** A byte range of deployed code, as solc reports immutable and link references (`start` and `length` in bytes). */
export interface ByteRange {
  start: number
  length: number
}

/**
 * Deployed code as the matcher compares it.
 * - `code`: the bytes (link placeholders decoded as zero bytes);
 * - `end`: where the metadata tail starts (`code.length` when there is none): bytes from `end` on are not compared;
 * - `masks`: sorted, merged, non-empty `[start, end)` pairs (flat: `[s0, e0, s1, e1, …]`) inside `[0, end)`, bytes
 *   not compared (always empty for code read from a chain: only artifacts carry masks);
 * - `maskedBytes`: how many bytes `masks` covers.
 */
export interface CodeShape {
  code: Uint8Array
  end: number
  masks: readonly number[]
  maskedBytes: number
}

/** Link placeholders in unlinked solc output: `__$<34 hex>$__` (solc ≥ 0.5) or `__<name padded with _>__` (older). */
const PLACEHOLDER = /__.{36}__/g
const HEX = /^[0-9a-fA-F]*$/

/**
 * Decodes deployed bytecode as artifacts hold it: `0x` optional, link placeholders (40 characters each) read as 20
 * zero bytes (the link references mask them anyway).
 * @param hex the hex text of an artifact's deployed bytecode
 * @returns the bytes, or undefined when the text is not even-length hex after placeholders are replaced
 */
export function decodeArtifactHex(hex: string): Uint8Array | undefined {
  let text = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex
  if (text.includes('_')) text = text.replace(PLACEHOLDER, '0'.repeat(40))
  if (text.length % 2 !== 0 || !HEX.test(text)) return undefined
  return Uint8Array.from(Buffer.from(text, 'hex'))
}

/**
 * Where the Solidity metadata tail starts: the last 2 bytes give the CBOR length n (big-endian); the tail is then
 * the n bytes before them, and it is taken as metadata only when it is plausible — the first byte a CBOR map of 1 to
 * 5 entries (0xa1..0xa5) and the next one the header of a short text key (0x60..0x77, e.g. "ipfs", "bzzr0", "solc",
 * "experimental"). Code without such a tail (compiled with `appendCBOR: false`, or not Solidity) keeps its length.
 * @param code deployed code
 * @returns the offset of the tail's first CBOR byte, or `code.length` when the code has no plausible tail
 */
export function metadataStart(code: Uint8Array): number {
  const len = code.length
  if (len < 4) return len
  const cborLength = (code[len - 2] << 8) | code[len - 1]
  const start = len - 2 - cborLength
  if (cborLength < 2 || start < 0) return len
  const mapHead = code[start]
  const keyHead = code[start + 1]
  if (mapHead < 0xa1 || mapHead > 0xa5 || keyHead < 0x60 || keyHead > 0x77) return len
  return start
}

/**
 * The metadata of contract code embedded in this code (the creation code of a contract made with `new C()`): solc's
 * default CBOR `{ "ipfs": bytes(34), "solc": bytes(3) }` followed by its length 0x0033. Its 34 hash bytes change
 * with the embedded contract's metadata, so they are masked like the outer tail is stripped.
 * @param code deployed code
 * @param end search only in `[0, end)` (the outer metadata tail excluded)
 * @returns the ranges of the embedded ipfs hashes
 */
export function embeddedMetadataHashes(code: Uint8Array, end: number): ByteRange[] {
  const buf = Buffer.from(code.buffer, code.byteOffset, end)
  const out: ByteRange[] = []
  // a2 (map of 2) 64 "ipfs" 58 22 (bytes, 34 long)
  const head = Buffer.from('a264697066735822', 'hex')
  // 64 "solc" 43 (bytes, 3 long) <3 version bytes> 00 33 (the length, 51)
  const solc = Buffer.from('64736f6c6343', 'hex')
  for (let i = buf.indexOf(head); i >= 0; i = buf.indexOf(head, i + 1)) {
    const hashStart = i + head.length
    const after = hashStart + 34
    if (after + solc.length + 5 > end) break
    if (!buf.subarray(after, after + solc.length).equals(solc)) continue
    if (buf[after + solc.length + 3] !== 0x00 || buf[after + solc.length + 4] !== 0x33) continue
    out.push({ start: hashStart, length: 34 })
  }
  return out
}

/**
 * A library's own address: solc starts a library's deployed code with `PUSH20 <address> ADDRESS EQ` (0x73, 20
 * bytes, 0x30, 0x14), the address zero in the artifact and set at deployment (the call-protection check).
 * @returns the range of those 20 bytes, or undefined when the code does not start so
 */
export function librarySelfAddress(code: Uint8Array): ByteRange | undefined {
  if (code.length < 23 || code[0] !== 0x73 || code[21] !== 0x30 || code[22] !== 0x14) return undefined
  for (let i = 1; i <= 20; i++) if (code[i] !== 0) return undefined
  return { start: 1, length: 20 }
}

/**
 * The shape of an artifact's deployed code: its metadata tail located, and its immutables, link references, a
 * library's own address and embedded metadata hashes masked (clipped to `[0, end)`, sorted, merged).
 * @param code the artifact's deployed code (decodeArtifactHex)
 * @param ranges immutable and link references from the artifact or its build info
 */
export function artifactShape(code: Uint8Array, ranges: readonly ByteRange[]): CodeShape {
  const end = metadataStart(code)
  const all = [...ranges, ...embeddedMetadataHashes(code, end)]
  const self = librarySelfAddress(code)
  if (self) all.push(self)
  const pairs: [number, number][] = []
  for (const r of all) {
    const s = Math.max(0, Math.floor(r.start))
    const e = Math.min(end, Math.floor(r.start + r.length))
    if (Number.isFinite(s) && Number.isFinite(e) && e > s) pairs.push([s, e])
  }
  pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  const masks: number[] = []
  let maskedBytes = 0
  for (const [s, e] of pairs) {
    const last = masks.length - 1
    if (last > 0 && s <= masks[last]) {
      if (e > masks[last]) {
        maskedBytes += e - masks[last]
        masks[last] = e
      }
    } else {
      masks.push(s, e)
      maskedBytes += e - s
    }
  }
  return { code, end, masks, maskedBytes }
}

/**
 * The shape of code read from a chain: its metadata tail located, nothing masked.
 * @param code runtime code (eth_getCode)
 * @param stripTail false to compare the whole code (the second try when a tail-looking end was not metadata)
 */
export function chainCodeShape(code: Uint8Array, stripTail = true): CodeShape {
  return { code, end: stripTail ? metadataStart(code) : code.length, masks: [], maskedBytes: 0 }
}

/**
 * Whether the chain code equals the artifact code on every unmasked byte of `[from, artifact.end)` (both shapes of
 * the same `end`).
 * @param artifact the artifact's shape (its masks are skipped)
 * @param chain the chain code's shape
 * @param from the first byte to compare (bytes before it already compared)
 */
export function equalOutsideMasks(artifact: CodeShape, chain: CodeShape, from: number): boolean {
  if (artifact.end !== chain.end) return false
  const a = Buffer.from(artifact.code.buffer, artifact.code.byteOffset, artifact.end)
  const c = Buffer.from(chain.code.buffer, chain.code.byteOffset, chain.end)
  let pos = from
  const m = artifact.masks
  for (let i = 0; i <= m.length; i += 2) {
    const segEnd = i < m.length ? m[i] : artifact.end
    if (segEnd > pos && a.compare(c, pos, segEnd, pos, segEnd) !== 0) return false
    if (i < m.length) pos = Math.max(pos, m[i + 1])
  }
  return true
}

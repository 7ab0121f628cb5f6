/**
 * Reading RLP in place: item boundaries, and a decode whose byte strings are views into the input instead of
 * copies (docs/architecture.md#storage). `@ethereumjs/rlp`'s `decode` copies every byte string into an array of
 * its own (one typed array and one array buffer each, ~180 bytes of overhead before the bytes): right for data
 * read once, wasteful for the decoded blocks the block store keeps, whose fields all come out of one block RLP.
 * Encoding stays with `@ethereumjs/rlp`.
 *
 * The checks are of shape only (every item inside its parent, the input one item): the data read here is data
 * this node wrote, or is verified after decoding (a stored header is hashed and compared).
 */

/** A decoded RLP item: a byte string (a view into the input) or a list of items. */
export type RlpView = Uint8Array | RlpView[]

/** Where an RLP item lies in its input: its first byte, its payload's first byte, the byte after it. */
export interface RlpItemBounds {
  /** Index of the item's prefix byte. */
  start: number
  /** Index of the payload's first byte (a list's payload holds its items). */
  data: number
  /** Index of the byte after the item. */
  end: number
  /** True for a list, false for a byte string. */
  list: boolean
}

/** Start of the payload and end of the RLP item at `pos` (a list's payload holds its items); no bounds check. */
export function rlpItem(b: Uint8Array, pos: number): { data: number; end: number } {
  const first = b[pos]!
  if (first < 0x80) return { data: pos, end: pos + 1 }
  if (first <= 0xb7) return { data: pos + 1, end: pos + 1 + first - 0x80 }
  if (first < 0xc0) return longItem(b, pos, first - 0xb7)
  if (first <= 0xf7) return { data: pos + 1, end: pos + 1 + first - 0xc0 }
  return longItem(b, pos, first - 0xf7)
}

/** The position after the `count` RLP items that start at `pos` (each item whole: a list with its payload). */
export function skipItems(b: Uint8Array, pos: number, count: number): number {
  for (let i = 0; i < count; i++) pos = rlpItem(b, pos).end
  return pos
}

function longItem(b: Uint8Array, pos: number, lengthBytes: number): { data: number; end: number } {
  let len = 0
  for (let i = 1; i <= lengthBytes; i++) len = len * 256 + b[pos + i]!
  return { data: pos + 1 + lengthBytes, end: pos + 1 + lengthBytes + len }
}

/**
 * The bounds of the item at `pos`, checked to end at or before `limit`.
 * @throws Error when the input ends before the item does
 */
export function itemBounds(b: Uint8Array, pos: number, limit = b.length): RlpItemBounds {
  if (pos >= limit) throw new Error('RLP: input too short')
  const { data, end } = rlpItem(b, pos)
  // (written so that NaN fails too: a length prefix cut off by the end of the input reads as NaN)
  if (!(end <= limit && data <= end)) throw new Error('RLP: an item runs past its list or the input')
  return { start: pos, data, end, list: b[pos]! >= 0xc0 }
}

/**
 * The items of the list `list` (bounds of each, in order).
 * @throws Error when `list` is not a list or an item runs past it
 */
export function listItems(b: Uint8Array, list: RlpItemBounds): RlpItemBounds[] {
  if (!list.list) throw new Error('RLP: expected a list')
  const out: RlpItemBounds[] = []
  for (let pos = list.data; pos < list.end;) {
    const item = itemBounds(b, pos, list.end)
    out.push(item)
    pos = item.end
  }
  return out
}

/**
 * The item `item` of `b` decoded, its byte strings views into `b` (they change if `b` does: decode a buffer the
 * caller owns).
 */
export function viewsOf(b: Uint8Array, item: RlpItemBounds): RlpView {
  if (!item.list) return b.subarray(item.data, item.end)
  return listItems(b, item).map((child) => viewsOf(b, child))
}

/**
 * The bounds of `b` read as exactly one RLP item (a block RLP, a receipt RLP, a derived RLP).
 * @throws Error when `b` is empty, the item runs past `b`, or bytes follow it
 */
export function wholeItem(b: Uint8Array): RlpItemBounds {
  const item = itemBounds(b, 0)
  if (item.end !== b.length) throw new Error('RLP: bytes after the item')
  return item
}

/**
 * `b` decoded as one RLP item, its byte strings views into `b`.
 * @throws Error when `b` is not exactly one well-bounded item
 */
export function decodeViews(b: Uint8Array): RlpView {
  return viewsOf(b, wholeItem(b))
}

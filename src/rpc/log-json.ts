/**
 * eth_getLogs' answer as the bytes the transport sends: the JSON array of the matching logs, each log as
 * src/rpc/format.ts formatLog serializes it (LogFilterElement plus `removed: false`;
 * docs/reference-rules.md#rule-log-json), byte for byte.
 *
 * Two costs are kept down. A log's JSON text is made once and cached (a mined log never changes; a reverted block's
 * logs are dropped with it), so a repeated query copies texts into one Buffer. And the first query over many blocks,
 * which runs mostly unoptimised code, makes the texts of all its new logs with one hex encoding of all their bytes,
 * where a formatted object per log took seven hex encodings and a JSON serialization each. For the bench's 1000-log
 * answer (one process, single-threaded so compilation counts in): first call 13.3-13.7 → 4.5-7.5 ms, later calls
 * 0.5-0.6 → 0.09-0.1 ms (the joined string and the transport's UTF-8 copy of it included before), measured.
 */
import type { LogBlock, LogRecord, LogTx } from '../types/records.js'
import { RawJson } from './format.js'

/** A log match as the answer reads it (src/events/log-query.ts LogMatch). */
export interface LogOf {
  log: LogRecord
  tx: LogTx
  block: LogBlock
}

/** Writes `text` (one byte per character) into the Buffer at `at`; returns the bytes written. */
type Latin1Writer = (this: Buffer, text: string, at: number) => number

/**
 * Node's own Latin-1 writer of Buffers (`latin1Write`, on Buffer.prototype in every Node this package supports,
 * though undocumented): `write(text, at, 'latin1')` without its argument checks and encoding lookup, two wrapper
 * calls per text that cost more than the copy in the first, unoptimised queries (1000 texts: ~1.5-2.7 →
 * ~0.5 ms, measured); `write` where it is missing.
 */
const latin1Write: Latin1Writer =
  (Buffer.prototype as unknown as { latin1Write?: Latin1Writer }).latin1Write ??
  function (this: Buffer, text: string, at: number): number {
    return this.write(text, at, 'latin1')
  }

/** The JSON text of each log answered so far (weak: it goes with the log's block record). */
const texts = new WeakMap<LogRecord, string>()

/**
 * Bytes kept free in front of and behind the answer for the dispatcher's envelope (`{"jsonrpc":"2.0","id":…,"result":`
 * and `}`, src/rpc/format.ts RawJson.body): an envelope that fits is written there, without a copy of the answer.
 */
const ENVELOPE_ROOM = 64
const SUFFIX_ROOM = 8

/**
 * The JSON array of the matches' logs, in their order, as UTF-8 bytes with room for the envelope. The texts are
 * ASCII (hex and fixed keys), so each is copied in one byte per character: no ~600 KB joined string for a 1000-log
 * answer (a new large object every call, which the transport then encoded into UTF-8 again).
 * @param matches the logs with their transaction and block
 * @returns the answer (src/rpc/format.ts RawJson over the bytes)
 */
export function logsJson(matches: readonly LogOf[]): RawJson {
  const n = matches.length
  const all = new Array<string>(n)
  let missing: number[] | undefined
  let size = n > 0 ? n + 1 : 2 // brackets and commas
  for (let i = 0; i < n; i++) {
    const text = texts.get(matches[i]!.log)
    if (text === undefined) (missing ??= []).push(i)
    else {
      all[i] = text
      size += text.length
    }
  }
  if (missing !== undefined) size += newTexts(matches, missing, all)
  const bytes = Buffer.allocUnsafe(ENVELOPE_ROOM + size + SUFFIX_ROOM)
  let at = ENVELOPE_ROOM
  bytes[at++] = 0x5b // [
  for (let i = 0; i < n; i++) {
    if (i > 0) bytes[at++] = 0x2c // ,
    at += latin1Write.call(bytes, all[i]!, at)
  }
  bytes[at++] = 0x5d // ]
  return new RawJson({ bytes, start: ENVELOPE_ROOM, end: at })
}

/**
 * Makes and caches the texts of the logs `matches[i]` for i in `which`, into `out[i]`: all their hashes, addresses,
 * topics and data are hex-encoded in one pass, then cut into the texts. A text is made as a rope of slices of that
 * hex string; writing it into the answer ({@link logsJson}) flattens it in place, so the cached texts do not keep
 * the hex string alive.
 * @returns the texts' total length
 */
function newTexts(matches: readonly LogOf[], which: readonly number[], out: string[]): number {
  let byteCount = 0
  for (let k = 0; k < which.length; k++) {
    const { log, tx, block } = matches[which[k]!]!
    byteCount += block.hash.length + tx.hash.length + log.address.length + log.data.length
    const topics = log.topics
    for (let t = 0; t < topics.length; t++) byteCount += topics[t]!.length
  }
  const raw = Buffer.allocUnsafe(byteCount)
  let at = 0
  for (let k = 0; k < which.length; k++) {
    const { log, tx, block } = matches[which[k]!]!
    raw.set(block.hash, at)
    at += block.hash.length
    raw.set(tx.hash, at)
    at += tx.hash.length
    raw.set(log.address, at)
    at += log.address.length
    raw.set(log.data, at)
    at += log.data.length
    const topics = log.topics
    for (let t = 0; t < topics.length; t++) {
      raw.set(topics[t]!, at)
      at += topics[t]!.length
    }
  }
  const hex = raw.toString('hex')
  let h = 0
  let length = 0
  for (let k = 0; k < which.length; k++) {
    const i = which[k]!
    const { log, tx, block } = matches[i]!
    const blockHash = hex.slice(h, (h += 2 * block.hash.length))
    const txHash = hex.slice(h, (h += 2 * tx.hash.length))
    const address = hex.slice(h, (h += 2 * log.address.length))
    const data = hex.slice(h, (h += 2 * log.data.length))
    const topics = log.topics
    let topicList = ''
    for (let t = 0; t < topics.length; t++) {
      topicList += (t === 0 ? '"0x' : ',"0x') + hex.slice(h, (h += 2 * topics[t]!.length)) + '"'
    }
    // the keys and order of formatLog, as JSON.stringify writes them (no value needs escaping)
    const text =
      '{"logIndex":"0x' +
      log.logIndex.toString(16) +
      '","blockNumber":"0x' +
      block.header.number.toString(16) +
      '","blockHash":"0x' +
      blockHash +
      '","transactionHash":"0x' +
      txHash +
      '","transactionIndex":"0x' +
      tx.index.toString(16) +
      '","address":"0x' +
      address +
      '","data":"0x' +
      data +
      '","topics":[' +
      topicList +
      '],"removed":false}'
    texts.set(log, text)
    out[i] = text
    length += text.length
  }
  return length
}

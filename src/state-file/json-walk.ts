/**
 * Picks values out of a JSON document as it streams by, with their paths: the document is tokenized by
 * stream-json's parser and only the sub-trees a predicate asks for are assembled (one at a time), so a file far
 * larger than memory is read in constant memory apart from the picked values. Used to load state files.
 *
 * Objects are assembled as {@link JsonObject}s (their members in a flat array), not as plain objects: a state
 * file's storage objects are keyed by slot hashes, and plain objects with data-dependent keys cost V8 a hidden
 * class per new key set (and stream-json's Assembler a property store per member).
 *
 * The tokenizer is stream-json's raw `jsonParser` fed one decoded chunk at a time and its tokens walked
 * synchronously: one `await` per chunk of the input, not per token (a stream of token objects cost more than
 * the tokenizing itself on a 100 MB file).
 */
import type { Readable } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { jsonParser } from 'stream-json/parser.js'

/** A path in the document: object keys and array indexes from the root. */
export type JsonPath = (string | number)[]

/**
 * A JSON object as its members in document order: `items` holds key, value, key, value … (a repeated key stays
 * repeated; {@link JsonObject.get} answers the last one, as JSON.parse would).
 */
export class JsonObject {
  readonly items: unknown[] = []

  /** The value of member `name` (the last one of that name), or undefined. */
  get(name: string): unknown {
    const items = this.items
    for (let i = items.length - 2; i >= 0; i -= 2) if (items[i] === name) return items[i + 1]
    return undefined
  }

  /** Number of members. */
  get size(): number {
    return this.items.length >> 1
  }
}

/** What kind of JSON value starts at a path (offered to the predicate of {@link pickValues}). */
export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null'

/** The kind of value a stream-json token begins (undefined for keys, ends and other tokens). */
function kindOf(name: string): JsonKind | undefined {
  switch (name) {
    case 'startObject':
      return 'object'
    case 'startArray':
      return 'array'
    case 'stringValue':
      return 'string'
    case 'numberValue':
      return 'number'
    case 'trueValue':
    case 'falseValue':
      return 'boolean'
    case 'nullValue':
      return 'null'
    default:
      return undefined
  }
}

/** A picked value and where it was. */
export interface Picked {
  path: JsonPath
  value: unknown
}

interface Frame {
  array: boolean
  /** Current key (objects) or index (arrays). */
  at: string | number
}

/** The stream-json token shapes this walker reads (packed keys, strings and numbers). */
type Token = { name: string; value?: unknown }

/**
 * Streams `input` (JSON text) and yields each value whose path `pick` accepts, assembled: objects as
 * {@link JsonObject}s, arrays as arrays, numbers as their text (large integers keep every digit), strings, true,
 * false and null. Values inside a picked value are not offered again.
 * @param input the document's bytes (already decompressed)
 * @param pick decides for a path (below the root) whether its value is wanted, told the kind of value that starts
 *   there; it may throw to stop the walk (e.g. on a value of the wrong kind)
 * @throws (rejects) the parser's Error on malformed or truncated JSON, or what `pick` threw
 */
export async function* pickValues(
  input: Readable,
  pick: (path: JsonPath, kind: JsonKind) => boolean,
): AsyncGenerator<Picked> {
  const tokenize = jsonParser({ streamValues: false }) as unknown as (text: unknown) => unknown
  const NONE = Symbol.for('object-stream.none')
  const decoder = new StringDecoder('utf8')
  const stack: Frame[] = []
  // the picked value being assembled: its path and open containers (an array, or a JsonObject's items)
  let assembling: JsonPath | undefined
  let result: unknown
  const open: unknown[][] = []
  let top: unknown[] | undefined
  /** The path of the value starting now (advances the enclosing array's index). */
  const valuePath = (): JsonPath => {
    const top = stack[stack.length - 1]
    if (top?.array) top.at = (top.at as number) + 1
    return stack.map((f) => f.at)
  }
  /** The tokens of a chunk of text (`NONE` flushes the end of the document). */
  const tokensOf = (text: unknown): Token[] => {
    const r = tokenize(text) as { values?: Token[] } | symbol | undefined
    // the parser answers stream-chain's `many(tokens)`, or its `none` marker (a symbol) when a chunk completes none
    return typeof r === 'object' && r !== null && Array.isArray(r.values) ? r.values : []
  }
  let first = true
  const chunks = async function* (): AsyncGenerator<Token[]> {
    for await (const chunk of input as AsyncIterable<Buffer | string>) {
      let text = typeof chunk === 'string' ? chunk : decoder.write(chunk)
      // a byte-order mark may start the document (RFC 8259 §8.1)
      if (first && text.length > 0) {
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
        first = false
      }
      if (text.length > 0) yield tokensOf(text)
    }
    const rest = decoder.end()
    if (rest.length > 0) yield tokensOf(rest)
    yield tokensOf(NONE)
  }
  for await (const batch of chunks())
    for (const token of batch) {
      if (assembling) {
        let value: unknown
        switch (token.name) {
          case 'keyValue':
          case 'stringValue':
          case 'numberValue':
            top!.push(token.value)
            continue
          case 'startObject': {
            const o = new JsonObject()
            top!.push(o)
            open.push((top = o.items))
            continue
          }
          case 'startArray': {
            const a: unknown[] = []
            top!.push(a)
            open.push((top = a))
            continue
          }
          case 'endObject':
          case 'endArray':
            open.pop()
            top = open[open.length - 1]
            if (top !== undefined) continue
            value = result
            break
          case 'nullValue':
          case 'trueValue':
          case 'falseValue':
            top!.push(token.value)
            continue
          default:
            continue
        }
        yield { path: assembling, value }
        assembling = undefined
        continue
      }
      const name = token.name
      if (name === 'keyValue') {
        stack[stack.length - 1]!.at = token.value as string
        continue
      }
      if (name === 'endObject' || name === 'endArray') {
        stack.pop()
        continue
      }
      const kind = kindOf(name)
      if (kind === undefined) continue
      const path = valuePath()
      if (stack.length > 0 && pick(path, kind)) {
        if (kind !== 'object' && kind !== 'array') {
          yield { path, value: token.value === undefined ? null : token.value }
        } else {
          const container = kind === 'object' ? new JsonObject() : []
          result = container
          top = container instanceof JsonObject ? container.items : container
          open.push(top)
          assembling = path
        }
        continue
      }
      if (name === 'startObject') stack.push({ array: false, at: '' })
      else if (name === 'startArray') stack.push({ array: true, at: -1 })
    }
  if (assembling || stack.length > 0) throw new Error('unexpected end of the document')
}

/**
 * The shape of a state file (format: ./format.ts) checked as its values start streaming by
 * (./json-walk.ts tells the kind of each value it offers): the members the loader reads must be the
 * containers the format says, or the load stops with an error naming the member and what it holds instead —
 * rather than skipping it and loading an empty or partial state. What is inside an account, a byte-cell
 * object or a pair is checked where it is read (./account-entries.ts, ./load.ts).
 */
import type { JsonKind, JsonPath } from './json-walk.js'
import { StateFileError } from './format.js'

/** A kind as a message names it: "an object", "a number", "null"… */
export function kindName(kind: JsonKind): string {
  return kind === 'null' ? 'null' : kind === 'object' || kind === 'array' ? `an ${kind}` : `a ${kind}`
}

/** The `node_cli` members that are numbers or strings (format: ./format.ts NodeCliMeta). */
export const NODE_CLI_SCALARS: ReadonlySet<string> = new Set([
  'version',
  'network',
  'chainId',
  'genesisHash',
  'stateRoot',
  'head',
  'minimumGasPrice',
])

/** The `node_cli` members that are objects or arrays, and what each holds (for the message). */
const NODE_CLI_CONTAINERS = new Map<string, [JsonKind, string]>([
  ['storageBytes', ['object', 'an object (address → slot → bytes)']],
  ['rawEntries', ['array', 'an array of [key, value] pairs']],
  ['blocks', ['array', 'an array of [block, extra, addresses] items']],
])

/**
 * Checks the kind of the value starting at `path` where the format fixes it: `accounts` an object of
 * objects, `best_block_number` a number or string, `node_cli` an object whose `storageBytes` is an object of
 * objects, `rawEntries` and `blocks` arrays (their items' shape is checked by the loader), and the members of
 * {@link NODE_CLI_SCALARS} numbers or strings. Other paths (Anvil's `block`, `blocks`, `transactions`…) are not
 * checked.
 * @param path where the value starts (below the document's root)
 * @param kind what starts there
 * @param label how errors name the input, e.g. "state file ./state.json"
 * @throws StateFileError `<label>: "accounts" must be an object (address → account), got a number`,
 *   `<label>: account 0x…: expected an object, got an array`, `<label>: node_cli.blocks must be an array …`, …
 */
export function checkShape(path: JsonPath, kind: JsonKind, label: string): void {
  const top = path[0]
  const depth = path.length
  if (top === 'accounts') {
    // (the common case first: one call per account of the file)
    if (kind === 'object' || depth > 2) return
    if (depth === 1) throw wrongKind(label, '"accounts"', 'an object (address → account)', kind)
    throw new StateFileError(`${label}: account ${String(path[1])}: expected an object, got ${kindName(kind)}`)
  }
  if (top === 'best_block_number') {
    if (depth === 1 && kind !== 'number' && kind !== 'string')
      throw wrongKind(label, 'best_block_number', 'a number or string', kind)
    return
  }
  if (top !== 'node_cli') return
  if (depth === 1) {
    if (kind !== 'object') throw wrongKind(label, '"node_cli"', 'an object', kind)
    return
  }
  const second = String(path[1])
  if (depth === 2) {
    const container = NODE_CLI_CONTAINERS.get(second)
    if (container !== undefined) {
      if (kind !== container[0]) throw wrongKind(label, `node_cli.${second}`, container[1], kind)
    } else if (NODE_CLI_SCALARS.has(second) && kind !== 'number' && kind !== 'string') {
      throw new StateFileError(`${label}: node_cli.${second}: expected a number or string, got ${kindName(kind)}`)
    }
  } else if (depth === 3 && second === 'storageBytes' && kind !== 'object') {
    throw new StateFileError(`${label}: storageBytes of ${String(path[2])}: expected an object, got ${kindName(kind)}`)
  }
}

/** "<label>: <what> must be <expected>, got <kind>". */
function wrongKind(label: string, what: string, expected: string, kind: JsonKind): StateFileError {
  return new StateFileError(`${label}: ${what} must be ${expected}, got ${kindName(kind)}`)
}

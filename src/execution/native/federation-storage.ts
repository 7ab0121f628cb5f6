/**
 * The federations the Bridge keeps in its storage, and which one is active at a block
 * (docs/reference-rules.md#rule-bridge-federation; rskj J/co/rsk/peg/federation/FederationStorageProviderImpl.java,
 * FederationStorageIndexKey.java, FederationSupportImpl.java `getActiveFederation`, `getRetiringFederation`;
 * J/co/rsk/peg/BridgeSerializationUtils.java; FederationMember.java `serialize`):
 * - cells `newFederation` and `oldFederation` (DataWord.fromString keys) hold RLP [creation time in ms, creation
 *   block number, [member, …]]; their format version sits in `newFederationFormatVersion` /
 *   `oldFederationFormatVersion` (an RLP integer). Without a version cell each member is its compressed BTC key
 *   (one key for all purposes); with one, each member is a byte string holding RLP [btc key, rsk key, mst key];
 * - no `newFederation`: the genesis federation is active; a new one without an old one: the new one; both: the new
 *   one once executing block − its creation block ≥ the network's activation age, else the old one, and the old
 *   one is the retiring federation only while the new one is active.
 * Local writes to these cells (a state file, or none today from node-cli's own methods) are read the same way.
 */
import { decode as rlpDecode } from '@ethereumjs/rlp'
import { LRUCache } from 'lru-cache'
import { bytesToBigInt } from '../../util/bytes.js'
import { dataWordFromString } from '../../rsk/remasc.js'
import { BRIDGE_CONSTANTS, genesisFederation, type BridgeNetwork } from './bridge-constants.js'
import { ForkRemoteError } from '../../errors/domain-errors.js'
import {
  federation,
  FORMAT_STANDARD_MULTISIG,
  rskAddressOfKey,
  singleKeyMember,
  type FederationMember,
} from './bridge-federation.js'
import type { FederationView } from './bridge-federation.js'
import type { PrecompileInput } from '@ethereumjs/evm'
import { cell } from './bridge-storage.js'
import { NativeContractError, type NativeHost } from './native-contract.js'

/** Storage keys of the federation cells (FederationStorageIndexKey). */
export const FEDERATION_KEYS = {
  newFederation: dataWordFromString('newFederation'),
  newFederationFormatVersion: dataWordFromString('newFederationFormatVersion'),
  oldFederation: dataWordFromString('oldFederation'),
  oldFederationFormatVersion: dataWordFromString('oldFederationFormatVersion'),
} as const

/** Reads a Bridge storage cell by key (raw bytes, empty when unset). */
export type BridgeCellReader = (key: Uint8Array) => Promise<Uint8Array>

/** Where and when the federation is asked for. */
export interface FederationContext {
  network: BridgeNetwork
  /** The executing block's number. */
  blockNumber: bigint
  /** Whether a consensus rule is active at the executing block. */
  isActive: (rule: string) => boolean
}

const malformed = (what: string) => new NativeContractError(`malformed ${what} in the Bridge storage`)

function bytesOf(item: unknown, what: string): Uint8Array {
  if (!(item instanceof Uint8Array)) throw malformed(what)
  return item
}

function listOf(item: unknown, what: string): unknown[] {
  if (!Array.isArray(item)) throw malformed(what)
  return item
}

/** A compressed public key (33 bytes, 02/03 prefix). */
function key(item: unknown, what: string): Uint8Array {
  const k = bytesOf(item, what)
  if (k.length !== 33 || (k[0] !== 2 && k[0] !== 3)) throw malformed(what)
  return k
}

/**
 * Decodes a stored federation.
 * @param data the federation cell; @param version the format version cell's value (undefined: no such cell)
 * @throws NativeContractError "malformed … in the Bridge storage"
 */
export function decodeFederation(
  data: Uint8Array,
  version: number | undefined,
  network: BridgeNetwork,
): FederationView {
  const what = 'federation'
  const top = listOf(rlpDecode(data), what)
  if (top.length !== 3) throw malformed(what)
  const creationTimeMs = BigInt.asIntN(64, bytesToBigInt(bytesOf(top[0], what)))
  const creationBlockNumber = BigInt.asIntN(64, bytesToBigInt(bytesOf(top[1], what)))
  const members: FederationMember[] = listOf(top[2], what).map((m) => {
    const raw = bytesOf(m, 'federation member')
    if (version === undefined) return singleKeyMember(key(raw, 'federation member'))
    const ks = listOf(rlpDecode(raw), 'federation member')
    if (ks.length !== 3) throw malformed('federation member')
    return { btc: key(ks[0], 'BTC key'), rsk: key(ks[1], 'RSK key'), mst: key(ks[2], 'MST key') }
  })
  // a federation without a version cell is a standard multisig one; unknown versions read as standard too
  const format = version ?? FORMAT_STANDARD_MULTISIG
  return federation(members, creationTimeMs, creationBlockNumber, format, BRIDGE_CONSTANTS[network])
}

/** Decoded federations by network, version and cell bytes, the 16 last used (the cells rarely change: decode once). */
const decoded = new LRUCache<string, FederationView>({ max: 16 })

async function stored(
  read: BridgeCellReader,
  cell: Uint8Array,
  versionCell: Uint8Array,
  network: BridgeNetwork,
): Promise<FederationView | undefined> {
  const data = await read(cell)
  if (data.length === 0) return undefined
  const v = await read(versionCell)
  let version: number | undefined
  if (v.length > 0) {
    const item = rlpDecode(v)
    version = Number(BigInt.asIntN(32, bytesToBigInt(bytesOf(item, 'federation format version'))))
  }
  const id = `${network}:${version}:${Buffer.from(data).toString('hex')}`
  let fed = decoded.get(id)
  if (fed === undefined) {
    fed = decodeFederation(data, version, network)
    decoded.set(id, fed)
  }
  return fed
}

/** The active federation and the retiring one (if any) at a block. */
export interface Federations {
  active: FederationView
  retiring?: FederationView
  /** Whether the active federation comes from storage (false: the network's genesis federation). */
  elected: boolean
}

/**
 * FederationSupportImpl.getActiveFederation and getRetiringFederation.
 * @throws NativeContractError for malformed cells; whatever `read` raises (a fork's remote failures)
 */
export async function federations(read: BridgeCellReader, ctx: FederationContext): Promise<Federations> {
  const k = FEDERATION_KEYS
  const fresh = await stored(read, k.newFederation, k.newFederationFormatVersion, ctx.network)
  if (fresh === undefined) return { active: genesisFederation(ctx.network), elected: false }
  const old = await stored(read, k.oldFederation, k.oldFederationFormatVersion, ctx.network)
  if (old === undefined) return { active: fresh, elected: true }
  const age = BRIDGE_CONSTANTS[ctx.network].activationAge(ctx.isActive)
  return ctx.blockNumber - fresh.creationBlockNumber >= age
    ? { active: fresh, retiring: old, elected: true }
    : { active: old, elected: true }
}

/** {@link federations} of the Bridge a native call runs in, at its executing block. */
export function bridgeFederations(input: PrecompileInput, host: NativeHost): Promise<Federations> {
  return federations((key) => cell(input, key), {
    network: host.network,
    blockNumber: host.executionBlockNumber(),
    isActive: (rule) => host.isRuleActive(rule),
  })
}

/** Members' RSK addresses per federation: by BTC key, by RSK key. */
const payees = new WeakMap<FederationView, { btc: Uint8Array[]; rsk: Uint8Array[] }>()

/**
 * Where Remasc pays the federation at a block (RemascFederationProvider.getFederatorAddress): the active
 * federation's members in order, each at the address of its RSK key from RSKIP415 on, of its BTC key before it;
 * `genesis` (the network's genesis federators) while no federation is stored
 * (docs/reference-rules.md#rule-remasc-activations).
 * A fork whose remote cannot show the federation cells (no storage-bytes method) pays `genesis` too.
 * @param read the Bridge's storage at the executing block; @param genesis 20-byte addresses
 * @throws whatever `read` raises other than an unreadable remote cell; NativeContractError for malformed cells
 */
export async function remascFederators(
  read: BridgeCellReader,
  ctx: FederationContext,
  genesis: readonly Uint8Array[],
): Promise<readonly Uint8Array[]> {
  let feds: Federations
  try {
    feds = await federations(read, ctx)
  } catch (err) {
    if (err instanceof ForkRemoteError && err.unreadableCell) return genesis
    throw err
  }
  if (!feds.elected) return genesis
  let p = payees.get(feds.active)
  if (p === undefined) {
    p = {
      btc: feds.active.members.map((m) => rskAddressOfKey(m.btc)),
      rsk: feds.active.members.map((m) => rskAddressOfKey(m.rsk)),
    }
    payees.set(feds.active, p)
  }
  return ctx.isActive('rskip415') ? p.rsk : p.btc
}

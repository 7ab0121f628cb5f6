/**
 * The remote state at a fork block, read lazily through the fork cache (memory, then disk) and then the remote:
 * the {@link ForkStateSource} the state manager overlays (docs/architecture.md#forking). Each account is three
 * calls (balance, nonce, code) that go out in one batch; each cell one call; concurrent reads of the same key
 * share one fetch.
 *
 * Storage of this chain's native contracts (addresses 0x…01000000–0x…01ffffff: Bridge, Remasc) may hold cells
 * longer than 32 bytes or a single zero byte, which `eth_getStorageAt` cannot show: those are read with the
 * storage-bytes method (docs/reference-rules.md#rule-storage-bytes, #rule-fork-remote).
 */
import type { ForkAccount, ForkStateSource } from '../state/fork-source.js'
import { toHex, toKey } from '../util/bytes.js'
import type { ForkCache } from './fork-cache.js'
import { RemoteCallError, RemoteDataError } from './remote-errors.js'
import { type RemoteNode, storedWord } from './remote-node.js'

/** Whether `address` lies in the range of the chain's native contracts (0x…01000000–0x…01ffffff). */
export function isNativeContract(address: Uint8Array): boolean {
  if (address.length !== 20 || address[16] !== 0x01) return false
  for (let i = 0; i < 16; i++) if (address[i] !== 0) return false
  return true
}

/** Remote reads of a fork: how many of each kind went to the remote. */
export interface ForkedStateStats {
  accountsFetched: number
  cellsFetched: number
}

/** The remote state at one fork block, cached. */
export class ForkedStateSource implements ForkStateSource {
  readonly stats: ForkedStateStats = { accountsFetched: 0, cellsFetched: 0 }
  private readonly accountsInFlight = new Map<string, Promise<ForkAccount>>()
  private readonly cellsInFlight = new Map<string, Promise<Uint8Array>>()
  /** Native cells the remote cannot show (no storage-bytes method): not asked again. */
  private readonly unreadable = new Map<string, RemoteDataError>()

  /**
   * @param remote typed calls to the remote node
   * @param cache the fork's cache (memory and, unless off, disk)
   * @param blockNumber the fork block: every state read is at this number
   */
  constructor(
    readonly remote: RemoteNode,
    readonly cache: ForkCache,
    readonly blockNumber: bigint,
  ) {}

  /**
   * Nonce, balance and code of `address` at the fork block (see {@link ForkStateSource.account}).
   * @throws RemoteUnavailableError, RemoteCallError, RemoteProtocolError (ForkRemoteError, JSON-RPC -32000)
   */
  account(address: Uint8Array): ForkAccount | Promise<ForkAccount> {
    const hit = this.cache.peekAccount(address)
    if (hit !== undefined) return hit
    const key = toKey(address)
    let p = this.accountsInFlight.get(key)
    if (p === undefined) {
      p = this.fetchAccount(address).finally(() => this.accountsInFlight.delete(key))
      this.accountsInFlight.set(key, p)
    }
    return p
  }

  /**
   * The raw bytes of storage cell `slot` (32 bytes) of `address` at the fork block (see
   * {@link ForkStateSource.storage}).
   * @throws RemoteUnavailableError, RemoteCallError, RemoteProtocolError; RemoteDataError when a native contract's
   *   cell needs the storage-bytes method and the remote does not serve it (all ForkRemoteError, JSON-RPC -32000)
   */
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array | Promise<Uint8Array> {
    const hit = this.cache.peekCell(address, slot)
    if (hit !== undefined) return hit
    const key = `${toKey(address)}:${toKey(slot)}`
    const known = this.unreadable.get(key)
    if (known !== undefined) return Promise.reject(known)
    let p = this.cellsInFlight.get(key)
    if (p === undefined) {
      p = this.fetchCell(address, slot).finally(() => this.cellsInFlight.delete(key))
      this.cellsInFlight.set(key, p)
    }
    return p
  }

  /**
   * Fetches the given accounts and cells that are not at hand, all at once, so that they share batch requests
   * (for example a transaction's sender, recipient and the block's coinbase before it runs: one round trip
   * instead of one per account).
   * @param accounts 20-byte addresses
   * @param cells (address, 32-byte slot) pairs
   * @throws as {@link account} and {@link storage}
   */
  async prefetch(
    accounts: readonly Uint8Array[],
    cells: ReadonlyArray<readonly [Uint8Array, Uint8Array]> = [],
  ): Promise<void> {
    await Promise.all([...accounts.map((a) => this.account(a)), ...cells.map(([a, s]) => this.storage(a, s))])
  }

  private async fetchAccount(address: Uint8Array): Promise<ForkAccount> {
    const cached = await this.cache.loadAccount(address)
    if (cached !== undefined) return cached
    const n = this.blockNumber
    const [balance, nonce, code] = await Promise.all([
      this.remote.balance(address, n),
      this.remote.nonce(address, n),
      this.remote.code(address, n),
    ])
    const account: ForkAccount = { nonce, balance, code }
    this.stats.accountsFetched++
    this.cache.putAccount(address, account)
    return account
  }

  private async fetchCell(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const cached = await this.cache.loadCell(address, slot)
    if (cached !== undefined) return cached
    const value = isNativeContract(address)
      ? await this.nativeCell(address, slot)
      : storedWord(await this.remote.storageAt(address, slot, this.blockNumber))
    this.stats.cellsFetched++
    this.cache.putCell(address, slot, value)
    return value
  }

  /** A native contract's cell: the storage-bytes method, else eth_getStorageAt for cells that fit a word. */
  private async nativeCell(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const bytes = await this.remote.storageBytes(address, slot, this.blockNumber)
    if (bytes !== undefined) return bytes
    try {
      return storedWord(await this.remote.storageAt(address, slot, this.blockNumber))
    } catch (e) {
      if (!(e instanceof RemoteCallError)) throw e
      const err = new RemoteDataError(
        `fork remote cannot show storage cell ${toHex(slot)} of native contract ${toHex(address)}: ` +
          'it serves no storage-bytes method (the reference node has it off by default) ' +
          `and eth_getStorageAt answered ${e.remoteCode}: ${e.remoteMessage}`,
      )
      err.unreadableCell = true
      this.unreadable.set(`${toKey(address)}:${toKey(slot)}`, err)
      throw err
    }
  }
}

/**
 * State files for a running chain: dump it (to a file, or as anvil_dumpState's gzipped hex), load a file into a
 * new chain (`--load-state`: a node-cli file continues its chain exactly; an Anvil file is merged into the
 * genesis state), and merge one into a running chain (anvil_loadState).
 */
import type { Readable } from 'node:stream'
import type { Chain } from '../chain/chain.js'
import { Unitrie } from '../unitrie/unitrie.js'
import { toHex } from '../util/bytes.js'
import type { ProgressListener } from '../util/progress.js'
import { stateFileGzipHex, writeStateFile, type DumpSource } from './dump.js'
import { StateFileError } from './format.js'
import { intoState, loadState, openStateFile } from './load.js'

/** The network a chain runs (what a node-cli state file must match to continue it). */
export interface ChainIdentity {
  network: number
  chainId: number
}

/** What a load did, for the banner and logs. */
export interface LoadSummary {
  /** 'chain': a node-cli file's chain continued; 'merged': accounts merged into the live state. */
  kind: 'chain' | 'merged'
  accounts: number
  cells: number
  /** Best block number after the load. */
  head: bigint
}

async function capture(chain: Chain, id: ChainIdentity): Promise<DumpSource> {
  const c = await chain.captureState()
  return {
    network: id.network,
    chainId: id.chainId,
    genesisHash: c.genesis.hash,
    state: c.state,
    blocks: c.blocks,
    head: c.head,
  }
}

/**
 * Writes the chain's state file (atomically, see ./dump.ts).
 * @param onProgress receives the `writing` step (see {@link writeStateFile})
 * @throws (rejects) the file-system error; the previous file, if any, is then unchanged
 */
export async function dumpChainToFile(
  chain: Chain,
  id: ChainIdentity,
  file: string,
  onProgress?: ProgressListener,
): Promise<void> {
  await writeStateFile(file, await capture(chain, id), onProgress)
}

/** anvil_dumpState's answer: the state file gzipped, as 0x-hex. */
export async function dumpChainToHex(chain: Chain, id: ChainIdentity): Promise<string> {
  return stateFileGzipHex(await capture(chain, id))
}

/**
 * `--load-state`: loads a state file into a chain that has mined nothing. A node-cli file of the same network,
 * chain id and genesis continues its chain (blocks, receipts, logs and the exact state root); an Anvil file (or a
 * node-cli file without blocks) has its accounts merged into the genesis state. Nothing is changed when it fails.
 * @param onProgress receives the steps, throttled: `reading` (bytes of the file of its size, with the accounts and
 *   cells read), `sorting entries` and `building the state trie` (Unitrie entries), then for a node-cli file with
 *   blocks `importing blocks` (blocks)
 * @throws (rejects) StateFileError naming the problem (unreadable, malformed, truncated, another chain, a state
 *   that does not rebuild to its recorded root)
 */
export async function loadStateFileIntoNewChain(
  chain: Chain,
  id: ChainIdentity,
  file: string,
  onProgress?: ProgressListener,
): Promise<LoadSummary> {
  const label = `state file ${file}`
  const opened = await openStateFile(file)
  const loaded = await loadState(
    opened.input,
    label,
    onProgress && { listener: onProgress, size: opened.size, position: opened.position },
  )
  const meta = loaded.meta
  if (meta === undefined) {
    await chain.replaceLiveState(async (live) => intoState(loaded, live, true, onProgress))
    return { kind: 'merged', accounts: loaded.accounts, cells: loaded.cells, head: chain.reads.head.header.number }
  }
  const genesis = toHex((await chain.reads.blockByNumber(0n))!.hash)
  if (meta.network !== id.network || meta.chainId !== id.chainId || meta.genesisHash !== genesis) {
    throw new StateFileError(
      `${label} holds a chain of network ${meta.network}, chain id ${meta.chainId}, genesis ${meta.genesisHash}; ` +
        `this node runs network ${id.network}, chain id ${id.chainId}, genesis ${genesis} (start it with the ` +
        '--network, --chain-id, --gas-limit, --mnemonic and --balance the file was dumped with)',
    )
  }
  const state = intoState(loaded, Unitrie.empty(), true, onProgress)
  const root = toHex(state.hash())
  if (root !== meta.stateRoot) {
    throw new StateFileError(
      `${label}: its accounts rebuild the state root ${root}, not the recorded ${meta.stateRoot} ` +
        '(the file was changed or is damaged)',
    )
  }
  if (BigInt(meta.head) !== BigInt(loaded.blocks.length)) {
    throw new StateFileError(`${label}: it records head ${BigInt(meta.head)} but holds ${loaded.blocks.length} blocks`)
  }
  try {
    await chain.importChain(loaded.blocks, state, onProgress)
  } catch (err) {
    throw new StateFileError(`${label}: ${(err as Error).message}`)
  }
  return { kind: 'chain', accounts: loaded.accounts, cells: loaded.cells, head: chain.reads.head.header.number }
}

/**
 * anvil_loadState: merges a state (node-cli's or Anvil's, plain or gzipped JSON) into the running chain's live
 * state, as an in-place change (blocks in the file are not taken over).
 * @throws (rejects) StateFileError naming the problem; nothing is changed then
 */
export async function mergeStateIntoChain(chain: Chain, input: Readable, label: string): Promise<LoadSummary> {
  const loaded = await loadState(input, label)
  await chain.replaceLiveState(async (live) => intoState(loaded, live, false))
  return { kind: 'merged', accounts: loaded.accounts, cells: loaded.cells, head: chain.reads.head.header.number }
}

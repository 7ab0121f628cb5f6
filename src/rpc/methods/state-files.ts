/**
 * anvil_dumpState / anvil_loadState: the chain's state as a state file (format: src/state-file/format.ts) over
 * RPC. The state-file code is loaded on first use (start-up does not pay for the JSON streaming parser).
 */
import { invalidParams } from '../rpc-error.js'
import { method, type MethodSpec } from '../method-table.js'
import { P } from '../params.js'
import type { Services } from '../services.js'

/** The state-file methods. */
export function stateFileMethods(s: Services): MethodSpec[] {
  const id = () => ({ network: s.network, chainId: Number(s.chain.reads.chainId) })
  return [
    method('anvil_dumpState', 'anvil', 'the state file (accounts, storage, blocks) gzipped, as hex', [], async () => {
      const { dumpChainToHex } = await import('../../state-file/chain-state.js')
      return dumpChainToHex(s.chain, id())
    }),
    method(
      'anvil_loadState',
      'anvil',
      'merges a state file (node-cli or Anvil, JSON or gzipped, as hex) into the live state',
      [P.data('state')],
      async (_c, data) => {
        const [{ mergeStateIntoChain }, { stateBytes }, { StateFileError }] = await Promise.all([
          import('../../state-file/chain-state.js'),
          import('../../state-file/load.js'),
          import('../../state-file/format.js'),
        ])
        try {
          await mergeStateIntoChain(s.chain, stateBytes(data), 'the state')
        } catch (err) {
          if (err instanceof StateFileError) throw invalidParams(err.message)
          throw err
        }
        return true
      },
    ),
  ]
}

/**
 * An executor on the local network (33) with nothing allocated and no earlier blocks: the EVM the interpreter
 * tests run their programs on.
 */
import { Executor } from '../../src/execution/executor.js'
import { createChainCommon } from '../../src/execution/common.js'

/** A new executor for network 33, empty state, every BLOCKHASH unknown. */
export function emptyExecutor(): Promise<Executor> {
  return Executor.create({
    common: createChainCommon(33),
    alloc: {},
    network: 33,
    blockHash: async () => undefined,
  })
}

/**
 * The @ethereumjs `Common` for this chain: legacy transactions only, no base fee, EIP-155 with the
 * network's chain id, and the reference node's EVM: ≈ Cancun opcodes on pre-Berlin gas
 * (docs/reference-rules.md#rule-evm-fork, docs/reference-rules.md#rule-intrinsic-gas,
 * docs/reference-rules.md#rule-call-gas; rskj J/org/ethereum/vm/GasCost.java, OpCodes).
 *
 * How it is built (docs/reference-rules.md#lib-common-custom-chain): every fork from chainstart to petersburg is active
 * at block 0 (Petersburg gas: SLOAD 200, BALANCE 400, EXTCODEHASH 400, SSTORE 20 000/5 000 with 15 000 refund, refunds
 * capped at gasUsed/2, no EIP-2929/2930/2200/3529), and the `petersburg` spec is extended with the opcode EIPs the
 * reference has: PUSH0 (3855), TSTORE/TLOAD (1153), MCOPY (5656), the init-code limit and its 2 gas/word (3860,
 * RSKIP438), and the 0xEF code prefix rejection (3541). CHAINID, SELFBALANCE and BASEFEE (= the block's
 * minimumGasPrice) come as custom opcodes (see ./opcodes.ts); the Istanbul 16 gas/non-zero calldata byte (RSKIP400),
 * bn254 prices and the call depth limit 400 (RSKIP150) are set through `params`; the CALL/CREATE/SELFDESTRUCT gas rules
 * (no 63/64 rule, …) are custom gas functions too.
 */
import { paramsBlock } from '@ethereumjs/block'
import { Common, type ChainConfig } from '@ethereumjs/common'
import { paramsEVM } from '@ethereumjs/evm'
import { paramsTx } from '@ethereumjs/tx'
import { paramsVM } from '@ethereumjs/vm'
import { customCrypto } from '../crypto/secp256k1.js'
import { freezeParams } from './ethereumjs/index.js'

/** Forks active at block 0, in order. Istanbul and later are left out on purpose (see module doc). */
const FORKS = [
  'chainstart',
  'homestead',
  'tangerineWhistle',
  'spuriousDragon',
  'byzantium',
  'constantinople',
  'petersburg',
] as const

/**
 * Parameter overrides keyed by EIP number (merged over @ethereumjs defaults).
 * - 1 (frontier) txDataNonZeroGas 16: RSKIP400 calldata pricing (4/16 per zero/non-zero byte).
 * - 1 (frontier) stackLimit 400: the call depth limit (RSKIP150, rskj Program.getMaxDepth). @ethereumjs reads
 *   this parameter only for the depth of the CALL and CREATE ops (a frame at depth 400 cannot call or create: the op
 *   pushes 0); its operand stack keeps its own fixed 1 024-item limit.
 * - 609 (byzantium) bn254 add/mul/pairing 150/6 000/45 000 + 34 000·k (reference PrecompiledContracts.java).
 */
const PARAMS = {
  1: { txDataNonZeroGas: 16, stackLimit: 400 },
  609: { bn254AddGas: 150, bn254MulGas: 6000, bn254PairingGas: 45000, bn254PairingWordGas: 34000 },
}

/**
 * Creates the Common for a chain id.
 * @param chainId EIP-155 chain id (30 main, 31 test, 32 dev, 33 local/regtest, or `--chain-id`)
 * @param name a label for logs and errors
 * @returns a Common at hardfork `petersburg` with this chain's extra EIPs and native crypto
 */
export function createChainCommon(chainId: number, name = `rsk-${chainId}`): Common {
  const chain: ChainConfig = {
    name,
    chainId,
    defaultHardfork: 'petersburg',
    // A non-PoW consensus type: the block builder pays no mining reward (fees are ours to route to Remasc).
    consensus: { type: 'rsk', algorithm: 'rsk-mm' } as unknown as ChainConfig['consensus'],
    genesis: { gasLimit: 6_800_000, difficulty: 1, nonce: '0x0000000000000000', extraData: '0x' },
    hardforks: FORKS.map((fork) => ({ name: fork, block: 0 })),
    customHardforks: {
      petersburg: { eips: [1716, 3855, 1153, 5656, 3860, 3541] },
    },
    bootstrapNodes: [],
  } as ChainConfig
  // Every package's parameters, ours last, merged per EIP as successive `updateParams` calls would and handed to
  // the constructor: one deep copy and one parameter cache build instead of six (~0.7 MB and ~2 ms of start-up,
  // measured). Then make updateParams a no-op on this instance and its copies (src/execution/ethereumjs/
  // common-params.ts): otherwise every decoded tx and every header deep-copies the parameter tables and rebuilds
  // the cache (~15% of the automine path), and re-merging Frontier's table on a shallow copy overwrites
  // RSKIP400's 16 gas/non-zero byte with 68.
  const params: Record<string, Record<string, unknown>> = {}
  for (const set of [paramsTx, paramsBlock, paramsEVM, paramsVM, PARAMS] as Record<string, Record<string, unknown>>[]) {
    for (const [eip, values] of Object.entries(set)) params[eip] = { ...params[eip], ...values }
  }
  const common = new Common({ chain, hardfork: 'petersburg', customCrypto, params: params as never })
  freezeParams(common)
  return common
}

/**
 * Dev-chain node information for test tools: anvil_metadata, hardhat_metadata (answered under --compat hardhat
 * only), anvil_nodeInfo, and the
 * request log switch (anvil_setLoggingEnabled / hardhat_setLoggingEnabled).
 */
import { ErrorCode, RpcError } from '../rpc-error.js'
import { quantity, toHex } from '../../util/bytes.js'
import { method, type MethodSpec } from '../method-table.js'
import { P } from '../params.js'
import type { Services } from '../services.js'

/**
 * Why hardhat_metadata is refused outside the Hardhat profile. Hardhat 2's hardhat-ethers (signers.js) takes any
 * answer to it, on a network named `localhost` without a `gas` setting, as "this is a Hardhat node" and then sends
 * every transaction with a fixed gas limit of min(2^24, the project's Hardhat block gas limit) instead of
 * estimating — above the largest transaction this chain's block gas limit allows (6.8 M), so every transaction
 * would be rejected. Refusing it keeps hardhat-ethers estimating. The Hardhat profile answers it, with a block gas
 * limit that holds 2^24 (src/rpc/compat.ts, docs/compat-profiles.md#hardhat-metadata-and-the-gas-limit).
 */
const HARDHAT_METADATA_REFUSAL =
  'the method hardhat_metadata is not available: answering it makes hardhat-ethers send every transaction with ' +
  "16777216 gas, above this chain's block gas limit; anvil_metadata answers the same fields " +
  '(--compat hardhat answers it, with a 60 M block gas limit)'

/** The node information methods. */
export function devInfoMethods(s: Services): MethodSpec[] {
  const { chain, miner } = s

  /** The fields Hardhat's and Anvil's metadata share: numbers as JSON numbers, hashes as DATA. */
  const identity = () => ({
    clientVersion: s.clientVersion,
    chainId: Number(chain.reads.chainId),
    instanceId: s.instanceId,
    latestBlockNumber: Number(chain.reads.head.header.number),
    latestBlockHash: toHex(chain.reads.head.hash),
  })
  const metadata = () => ({ ...identity(), snapshots: {}, compat: s.compat.name })

  return [
    method(
      'anvil_setLoggingEnabled',
      'anvil',
      'request log on/off',
      [P.bool('enabled')],
      (_c, on) => {
        s.setLogging(on)
        return null
      },
      ['hardhat_setLoggingEnabled'],
    ),
    method(
      'anvil_metadata',
      'anvil',
      'client version, chain id, instance id, latest block, compat profile',
      [],
      metadata,
    ),
    method(
      'hardhat_metadata',
      'hardhat',
      "Hardhat's node metadata under --compat hardhat; else not served (-32601)",
      [],
      () => {
        if (!s.compat.answersHardhatMetadata) throw new RpcError(ErrorCode.MethodNotFound, HARDHAT_METADATA_REFUSAL)
        // Hardhat 3's fields; forkedNetwork only when forking
        if (!s.fork) return identity()
        const { point } = s.fork
        return {
          ...identity(),
          forkedNetwork: {
            chainId: Number(point.chainId),
            forkBlockNumber: Number(point.number),
            forkBlockHash: toHex(point.hash),
          },
        }
      },
    ),
    method('anvil_nodeInfo', 'anvil', 'node configuration summary', [], () => ({
      currentBlockNumber: quantity(chain.reads.head.header.number),
      currentBlockTimestamp: Number(chain.reads.head.header.timestamp),
      currentBlockHash: toHex(chain.reads.head.hash),
      hardFork: 'rsk',
      compat: s.compat.name,
      transactionOrder: 'fees',
      miningMode: miner.describe(),
      environment: {
        baseFee: '0x0',
        chainId: Number(chain.reads.chainId),
        gasLimit: quantity(chain.reads.nextContext().gasLimit),
        gasPrice: quantity(chain.reads.nextContext().minimumGasPrice),
      },
      // (the origin only: a hosted service's URL may hold its API key)
      forkConfig: s.fork
        ? { forkUrl: s.fork.remote.client.origin, forkBlockNumber: Number(s.fork.point.number), forkRetryBackoff: null }
        : { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
    })),
  ]
}

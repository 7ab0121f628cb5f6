// The ERC-20 workload every measurement shares: amounts, gas limits, addresses, and the token's calldata and
// Transfer log topics (ethers v6 from the project's devDependencies).
import { rootRequire } from './paths.mjs'

const { Interface, zeroPadValue } = rootRequire('ethers')

/** Token supply minted to the deployer (1e27 base units). */
export const SUPPLY = 10n ** 27n
/** The one recipient of the main run's transfers. */
export const RECIPIENT = '0x00000000000000000000000000000000000bE4C5'
/** Gas limit of every transfer (gas). */
export const TRANSFER_GAS = 100_000n
/** Gas limit of the token deploy (gas). */
export const DEPLOY_GAS = 3_000_000n
/** Blocks covered by eth_getLogs. */
export const LOG_RANGE = 1000n
/** Distinct blocks / receipts cycled through by the load tests. */
export const LOAD_SAMPLES = 64

export const iface = new Interface([
  'function balanceOf(address) view returns (uint256)',
  'function transfer(address,uint256) returns (bool)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
])
/** topics[0] of the Transfer event. */
export const TRANSFER_TOPIC = iface.getEvent('Transfer').topicHash
/** An address as an indexed log topic (32 bytes, lowercase hex). */
export const topicAddr = (a) => zeroPadValue(a, 32).toLowerCase()
/** Calldata of balanceOf(a). */
export const balanceOfData = (a) => iface.encodeFunctionData('balanceOf', [a])
/** Calldata of transfer(to, amount). */
export const transferData = (to, amount) => iface.encodeFunctionData('transfer', [to, amount])

/** The fields of a legacy (type 0) ERC-20 `transfer` of `amount` to `to` on `token`, for wallet.signTransaction. */
export const tokenTransferTx = ({ chainId, nonce, gasPrice, token, to, amount }) => ({
  type: 0,
  chainId,
  nonce,
  gasPrice,
  gasLimit: TRANSFER_GAS,
  to: token,
  data: transferData(to, amount),
  value: 0n,
})
/** A distinct, never-funded address per i (the varied eth_call balanceOf). */
export const someAddress = (i) => '0x' + (0xb0000000 + i).toString(16).padStart(40, '0')
/**
 * The varied eth_estimateGas amount: one non-zero byte in every amount (at most 2^72, below every balance), so
 * the calldata gas stays the same; 2286 distinct amounts cycle, more than node-cli's 2048-entry result memo.
 */
export const variedAmount = (i) => BigInt((i % 254) + 2) << BigInt(8 * (Math.floor(i / 254) % 9))

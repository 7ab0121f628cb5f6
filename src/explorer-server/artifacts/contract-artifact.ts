/**
 * The contract the matcher names for deployed code (interface 4 of the explorer; re-exported by
 * artifact-registry.ts).
 */

/**
 * A compiled contract, as the explorer shows it.
 * - `name`: the contract name (`Counter`);
 * - `source`: its source unit (`contracts/Counter.sol`; Hardhat's `sourceName`, Foundry's compilation target), when
 *   the artifact tells it;
 * - `abi`: the ABI JSON array as the artifact holds it (not validated).
 */
export interface ContractArtifact {
  name: string
  source?: string
  abi: readonly unknown[]
}

/**
 * The failure of a merged-mining solution whose work went stale (src/chain/mining/work-blocks.ts). Not a
 * DomainError (./domain-errors.ts): it never leaves the domain; src/chain/merged-mining/merged-mining-work.ts
 * turns it into the MergedMiningSubmitError the miner is answered with.
 */

/** The work's parent is no longer the best block (or its state changed): the solution cannot be imported. */
export class StaleWorkError extends Error {}

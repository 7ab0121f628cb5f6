// What both configs share: solc 0.8.30 from npm (soljson.js through `path`: compilers cannot be downloaded here)
// and the node under test (NODE_CLI_URL) as HTTP networks.
import path from "node:path";

export const solidity = {
  version: "0.8.30",
  // a non-binary file at `path` is run as solc-js (Hardhat's getCompilerFromPath); it must be absolute
  path: path.join(import.meta.dirname, "node_modules", "solc", "soljson.js"),
  // node-cli runs the reference node's EVM: Cancun opcodes, none of Prague's (solc 0.8.30's default)
  settings: { evmVersion: "cancun", optimizer: { enabled: true, runs: 200 } },
};

const url = process.env.NODE_CLI_URL ?? "http://127.0.0.1:4444";

/** The node's unlocked accounts sign (eth_sendTransaction), as `hardhat node` users are used to. */
export const nodecli = { type: "http", chainType: "l1", url } as const;

/**
 * The same node with a key Hardhat signs with locally (eth_sendRawTransaction): the dev account
 * keccak256("cow2"), funded at genesis.
 */
export const nodecliKey = {
  type: "http",
  chainType: "l1",
  url,
  accounts: [
    "0x88fcad7d65de4bf854b88191df9bf38648545e7e5ea367dff6e025b06a28244d",
  ],
} as const;

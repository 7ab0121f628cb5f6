// The ethers side of the project: ethers toolbox (mocha, chai matchers, Ignition with ethers, network helpers).
import hardhatToolboxMochaEthersPlugin from "@nomicfoundation/hardhat-toolbox-mocha-ethers";
import { defineConfig } from "hardhat/config";
import { nodecli, nodecliKey, solidity } from "./shared-config.ts";

export default defineConfig({
  plugins: [hardhatToolboxMochaEthersPlugin],
  solidity,
  paths: { tests: { mocha: "test/ethers" } },
  networks: { nodecli, nodecliKey },
  test: { mocha: { timeout: 60_000 } },
});

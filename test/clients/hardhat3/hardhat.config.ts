// The viem side of the project: viem toolbox (node:test runner, viem assertions, Ignition with viem, network
// helpers). The ethers side is hardhat.ethers.config.ts (the two Ignition extensions cannot be loaded together).
import hardhatToolboxViemPlugin from "@nomicfoundation/hardhat-toolbox-viem";
import { defineConfig } from "hardhat/config";
import { nodecli, nodecliKey, solidity } from "./shared-config.ts";

export default defineConfig({
  plugins: [hardhatToolboxViemPlugin],
  solidity,
  paths: { tests: { nodejs: "test/viem" } },
  networks: { nodecli, nodecliKey },
});

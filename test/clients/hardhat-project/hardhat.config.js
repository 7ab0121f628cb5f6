// A Hardhat 2 project as a new user writes it (hardhat-ethers, chai matchers, network helpers), pointed at a
// node-cli node through `networks.localhost` with no `gas` setting. Driven by test/e2e/hardhat-project.test.ts.
require('@nomicfoundation/hardhat-ethers')
require('@nomicfoundation/hardhat-chai-matchers')
const path = require('node:path')
const { subtask } = require('hardhat/config')
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require('hardhat/builtin-tasks/task-names')

// Compiler binaries cannot be downloaded here: compile with the solc npm package (solc-js) instead.
subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args, _hre, runSuper) => {
  const solc = require('solc')
  const version = solc.version() // e.g. 0.8.30+commit.73712a01.Emscripten.clang
  if (args.solcVersion === version.split('+')[0]) {
    return {
      compilerPath: path.join(path.dirname(require.resolve('solc/package.json')), 'soljson.js'),
      isSolcJs: true,
      version: args.solcVersion,
      longVersion: version.replace(/\.Emscripten.*$/, ''),
    }
  }
  return runSuper()
})

/** @type import('hardhat/config').HardhatUserConfig */
module.exports = {
  solidity: { version: '0.8.30', settings: { evmVersion: 'cancun', optimizer: { enabled: true, runs: 200 } } },
  networks: {
    // the URL comes from the test that starts the node; a user writes http://127.0.0.1:4444 here
    localhost: { url: process.env.NODE_CLI_URL ?? 'http://127.0.0.1:4444' },
  },
  mocha: process.env.MOCHA_JSON
    ? { reporter: 'json', reporterOptions: { output: process.env.MOCHA_JSON }, timeout: 60_000 }
    : { timeout: 60_000 },
}

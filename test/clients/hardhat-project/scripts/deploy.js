// `hardhat run scripts/deploy.js --network localhost`, as in Hardhat's sample project.
const hre = require('hardhat')

async function main() {
  const unlockTime = Math.floor(Date.now() / 1000) + 3600
  const vault = await hre.ethers.deployContract('Vault', [unlockTime], { value: 1000n })
  await vault.waitForDeployment()
  const token = await hre.ethers.deployContract('Token', [10n ** 24n])
  await token.waitForDeployment()
  console.log(`DEPLOYED vault=${await vault.getAddress()} token=${await token.getAddress()}`)
}

main().catch((err) => {
  console.error(err)
  process.exitCode = 1
})

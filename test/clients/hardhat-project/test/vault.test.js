// The mocha suite of a typical Hardhat 2 project, unchanged from what its author would write against Hardhat
// Network. Tests under "reference" pass against node-cli as it starts by default; tests under "compat" use the
// tools' assumptions (network helpers, one transaction per block) and pass with `--compat hardhat`.
const { expect } = require('chai')
const { ethers, network } = require('hardhat')
const helpers = require('@nomicfoundation/hardhat-network-helpers')

async function deployVault() {
  const [owner, other] = await ethers.getSigners()
  // the genesis block has timestamp 0 (the reference's), so the clock is the later of the head's and now
  const latest = await ethers.provider.getBlock('latest')
  const unlockTime = Math.max(latest.timestamp, Math.floor(Date.now() / 1000)) + 3600
  const vault = await ethers.deployContract('Vault', [unlockTime], { value: 1000n })
  await vault.waitForDeployment()
  const token = await ethers.deployContract('Token', [10n ** 24n])
  await token.waitForDeployment()
  return { vault, token, owner, other, unlockTime }
}

describe('reference', function () {
  it('deploys with hardhat-ethers (gas estimated, not fixed)', async function () {
    const { vault, token, owner, unlockTime } = await deployVault()
    expect(await vault.unlockTime()).to.equal(BigInt(unlockTime))
    expect(await vault.owner()).to.equal(owner.address)
    expect(await token.balanceOf(owner.address)).to.equal(10n ** 24n)
    expect(await ethers.provider.getBalance(await vault.getAddress())).to.equal(1000n)
  })

  it('emits events, found again with queryFilter and provider.getLogs', async function () {
    const { vault, owner } = await deployVault()
    await expect(vault.deposit({ value: 150n })).to.emit(vault, 'Deposited').withArgs(owner.address, 150n)
    await (await vault.deposit({ value: 250n })).wait()
    const events = await vault.queryFilter(vault.filters.Deposited(owner.address))
    expect(events.map((e) => e.args.amount)).to.deep.equal([150n, 250n])
    expect(events[0].removed).to.equal(false)
    const logs = await ethers.provider.getLogs({ address: await vault.getAddress(), fromBlock: 0 })
    expect(logs).to.have.length(2)
  })

  it('revertedWith and revertedWithCustomError', async function () {
    const { vault, other } = await deployVault()
    await expect(vault.withdraw()).to.be.revertedWith("You can't withdraw yet")
    await expect(vault.deposit({ value: 50n })).to.be.revertedWithCustomError(vault, 'TooSmall').withArgs(50n, 100n)
    await expect(vault.connect(other).deposit({ value: 10n })).to.be.reverted
  })

  it('ERC-20 transfers with the Transfer event', async function () {
    const { token, owner, other } = await deployVault()
    await expect(token.transfer(other.address, 1000n)).to.emit(token, 'Transfer').withArgs(owner.address, other.address, 1000n)
    expect(await token.balanceOf(other.address)).to.equal(1000n)
  })
})

describe('compat', function () {
  it('loadFixture, time.increase and withdraw', async function () {
    const { vault, owner } = await helpers.loadFixture(deployVault)
    await helpers.time.increase(3601)
    await expect(vault.withdraw()).to.emit(vault, 'Withdrawn')
    expect(await ethers.provider.getBalance(await vault.getAddress())).to.equal(0n)
    // the fixture's snapshot brings the vault's balance back
    const again = await helpers.loadFixture(deployVault)
    expect(await ethers.provider.getBalance(await again.vault.getAddress())).to.equal(1000n)
    expect(again.owner.address).to.equal(owner.address)
  })

  it('mine, time.latest and takeSnapshot', async function () {
    const before = await helpers.time.latestBlock()
    await helpers.mine(5)
    expect(await helpers.time.latestBlock()).to.equal(before + 5)
    const snapshot = await helpers.takeSnapshot()
    await helpers.mine(3)
    await snapshot.restore()
    expect(await helpers.time.latestBlock()).to.equal(before + 5)
  })

  it('setBalance and impersonateAccount', async function () {
    const stranger = '0x00000000000000000000000000000000000c0ffe'
    await helpers.setBalance(stranger, 10n ** 18n)
    expect(await ethers.provider.getBalance(stranger)).to.equal(10n ** 18n)
    await helpers.impersonateAccount(stranger)
    const signer = await ethers.getSigner(stranger)
    const [owner] = await ethers.getSigners()
    await expect(signer.sendTransaction({ to: owner.address, value: 1000n })).to.changeEtherBalance(owner, 1000n)
    await helpers.stopImpersonatingAccount(stranger)
  })

  it('changeEtherBalance(s)', async function () {
    const { vault, owner, other } = await deployVault()
    await expect(owner.sendTransaction({ to: other.address, value: 500n })).to.changeEtherBalances([owner, other], [-500n, 500n])
    await expect(vault.connect(other).pay(owner.address, { value: 300n })).to.changeEtherBalances(
      [other, vault, owner],
      [-300n, 0n, 300n],
    )
    await expect(vault.deposit({ value: 200n })).to.changeEtherBalance(vault, 200n)
  })

  it('changeTokenBalance(s)', async function () {
    const { token, owner, other } = await deployVault()
    await expect(token.transfer(other.address, 70n)).to.changeTokenBalance(token, other, 70n)
    await expect(token.transfer(other.address, 30n)).to.changeTokenBalances(token, [owner, other], [-30n, 30n])
  })
})

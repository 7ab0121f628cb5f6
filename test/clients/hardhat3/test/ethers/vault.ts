// The ethers toolbox's way (mocha, hardhat-ethers, chai matchers, Ignition, network helpers): deploy, read, write,
// events, the four kinds of revert, balance changes, ignition.deploy, loadFixture, and what a user sees when a
// locally signed EIP-1559 send is refused.
import { expect } from "chai";
import { network } from "hardhat";
import VaultModule from "../../ignition/modules/Vault.ts";
import { check, errorChain } from "../report.ts";

const { ethers, ignition, networkHelpers } = await network.create();

describe("ethers toolbox", () => {
  it(
    "ethers: deploy, read and write",
    check("ethers: deploy, read and write", async () => {
      const [owner] = await ethers.getSigners();
      const vault = await ethers.deployContract("Vault", [0n]);
      expect(await vault.owner()).to.equal(owner.address);
      await (await vault.deposit({ value: 1000n })).wait();
      expect(await vault.balanceOf(owner.address)).to.equal(1000n);
    })
  );

  it(
    "ethers: events (emit.withArgs, queryFilter)",
    check("ethers: events (emit.withArgs, queryFilter)", async () => {
      const [owner] = await ethers.getSigners();
      const token = await ethers.deployContract("Token", [1000n]);
      const [, other] = await ethers.getSigners();
      await expect(token.transfer(other.address, 10n))
        .to.emit(token, "Transfer")
        .withArgs(owner.address, other.address, 10n);
      const events = await token.queryFilter(token.filters.Transfer(), 0);
      expect(events.map((e) => e.args.value)).to.deep.equal([1000n, 10n]);
    })
  );

  it(
    "ethers: revertedWith (reason string)",
    check("ethers: revertedWith (reason string)", async () => {
      const vault = await ethers.deployContract("Vault", [0n]);
      await expect(vault.deposit({ value: 0n })).to.be.revertedWith(
        "Vault: zero deposit"
      );
    })
  );

  it(
    "ethers: revertedWithCustomError.withArgs",
    check("ethers: revertedWithCustomError.withArgs", async () => {
      const [, other] = await ethers.getSigners();
      const vault = await ethers.deployContract("Vault", [0n]);
      await expect(vault.connect(other).sweep())
        .to.be.revertedWithCustomError(vault, "NotOwner")
        .withArgs(other.address);
    })
  );

  it(
    "ethers: revertedWithPanic and revertedWithoutReason",
    check("ethers: revertedWithPanic and revertedWithoutReason", async () => {
      const vault = await ethers.deployContract("Vault", [0n]);
      await expect(vault.divide(1n, 0n)).to.be.revertedWithPanic(0x12);
      await expect(vault.failBare()).to.be.revertedWithoutReason(ethers);
    })
  );

  it(
    "ethers: changeEtherBalances",
    check("ethers: changeEtherBalances", async () => {
      const [owner] = await ethers.getSigners();
      const vault = await ethers.deployContract("Vault", [0n]);
      await expect(vault.deposit({ value: 1000n })).to.changeEtherBalances(
        ethers,
        [owner, vault],
        [-1000n, 1000n]
      );
    })
  );

  it(
    "ethers: ignition.deploy in a test",
    check("ethers: ignition.deploy in a test", async () => {
      const [owner] = await ethers.getSigners();
      const { vault, token } = await ignition.deploy(VaultModule);
      expect(await token.totalSupply()).to.equal(10n ** 24n);
      expect(await vault.owner()).to.equal(owner.address);
      expect(
        await ethers.provider.getCode(await vault.getAddress())
      ).to.not.equal("0x");
    })
  );

  it(
    "ethers: loadFixture",
    check("ethers: loadFixture", async () => {
      const [owner] = await ethers.getSigners();
      async function depositedVault() {
        const vault = await ethers.deployContract("Vault", [0n]);
        await (await vault.deposit({ value: 7n })).wait();
        return vault;
      }
      const first = await networkHelpers.loadFixture(depositedVault);
      await (await first.deposit({ value: 1n })).wait();
      const second = await networkHelpers.loadFixture(depositedVault);
      expect(await second.getAddress()).to.equal(await first.getAddress());
      expect(await second.balanceOf(owner.address)).to.equal(7n);
    })
  );

  it(
    "ethers: an EIP-1559 send signed by Hardhat shows node-cli's -32602 message",
    check(
      "ethers: an EIP-1559 send signed by Hardhat shows node-cli's -32602 message",
      async () => {
        const keyed = await network.create("nodecliKey");
        const [local] = await keyed.ethers.getSigners();
        const [, other] = await ethers.getSigners();
        let message = "";
        try {
          await local.sendTransaction({
            to: other.address,
            value: 1n,
            maxFeePerGas: 10n ** 9n,
            maxPriorityFeePerGas: 1n,
          });
        } catch (error) {
          message = errorChain(error);
        } finally {
          await keyed.close();
        }
        expect(message, message || "the send succeeded").to.match(
          /typed transaction \(type 0x02, EIP-1559\) not supported/
        );
        return message;
      }
    )
  );
});

// hardhat-network-helpers 3 through `network.create()` (what `hardhat --init` writes; 3.18 warns that `network.connect()` is
// deprecated): time, mining, balances, impersonation, fixtures, snapshots.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { network } from "hardhat";
import { getAddress } from "viem";
import { check } from "../report.ts";

const { viem, networkHelpers } = await network.create();
const publicClient = await viem.getPublicClient();
const [owner] = await viem.getWalletClients();

describe("network helpers", () => {
  it(
    "helpers: time.increase unlocks a time-locked withdraw",
    check("helpers: time.increase unlocks a time-locked withdraw", async () => {
      // node-cli's genesis has timestamp 0 (Hardhat's has its start time): on a fresh chain time.latest() is 0
      const now = BigInt(
        Math.max(
          await networkHelpers.time.latest(),
          Math.floor(Date.now() / 1000)
        )
      );
      const unlockTime = now + 3600n;
      const vault = await viem.deployContract("Vault", [unlockTime]);
      await vault.write.deposit({ value: 1000n });
      await viem.assertions.revertWithCustomError(
        vault.write.withdraw([1000n]),
        vault,
        "TooEarly"
      );
      await networkHelpers.time.increase(3600);
      await vault.write.withdraw([1000n]);
      assert.equal(await vault.read.balanceOf([owner.account.address]), 0n);
    })
  );

  it(
    "helpers: mine",
    check("helpers: mine", async () => {
      const before = await publicClient.getBlockNumber();
      await networkHelpers.mine(5);
      assert.equal(await publicClient.getBlockNumber(), before + 5n);
    })
  );

  it(
    "helpers: setBalance",
    check("helpers: setBalance", async () => {
      const address = "0x00000000000000000000000000000000000b0b01";
      await networkHelpers.setBalance(address, 123n * 10n ** 18n);
      assert.equal(
        await publicClient.getBalance({ address }),
        123n * 10n ** 18n
      );
    })
  );

  it(
    "helpers: impersonateAccount",
    check("helpers: impersonateAccount", async () => {
      const impersonated = getAddress(
        "0x00000000000000000000000000000000000b0b02"
      );
      await networkHelpers.setBalance(impersonated, 10n ** 18n);
      await networkHelpers.impersonateAccount(impersonated);
      const vault = await viem.deployContract("Vault", [0n]);
      const asImpersonated = await viem.getContractAt("Vault", vault.address, {
        client: { wallet: await viem.getWalletClient(impersonated) },
      });
      await asImpersonated.write.deposit({ value: 77n });
      assert.equal(await vault.read.balanceOf([impersonated]), 77n);
      await networkHelpers.stopImpersonatingAccount(impersonated);
    })
  );

  it(
    "helpers: loadFixture and takeSnapshot",
    check("helpers: loadFixture and takeSnapshot", async () => {
      async function depositedVault() {
        const vault = await viem.deployContract("Vault", [0n]);
        await vault.write.deposit({ value: 7n });
        return vault;
      }
      const first = await networkHelpers.loadFixture(depositedVault);
      await first.write.deposit({ value: 1n });
      const second = await networkHelpers.loadFixture(depositedVault);
      assert.equal(second.address, first.address);
      assert.equal(await second.read.balanceOf([owner.account.address]), 7n);

      const snapshot = await networkHelpers.takeSnapshot();
      const height = await publicClient.getBlockNumber();
      await networkHelpers.mine(3);
      await snapshot.restore();
      assert.equal(await publicClient.getBlockNumber(), height);
    })
  );
});

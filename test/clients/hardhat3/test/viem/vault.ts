// The viem toolbox's way (node:test, hardhat-viem, viem assertions, Ignition): deploy, read, write, events,
// reverts, balance changes, ignition.deploy, and what a user sees when a locally signed EIP-1559 send is refused.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { network } from "hardhat";
import { getAddress } from "viem";
import VaultModule from "../../ignition/modules/Vault.ts";
import { check, errorChain } from "../report.ts";

const { viem, ignition } = await network.create();
const publicClient = await viem.getPublicClient();
const [owner, other] = await viem.getWalletClients();

describe("viem toolbox", () => {
  it(
    "viem: deploy, read and write",
    check("viem: deploy, read and write", async () => {
      const vault = await viem.deployContract("Vault", [0n]);
      assert.equal(await vault.read.owner(), getAddress(owner.account.address));
      await vault.write.deposit({ value: 1000n });
      assert.equal(await vault.read.balanceOf([owner.account.address]), 1000n);
    })
  );

  it(
    "viem: events (emitWithArgs, getContractEvents)",
    check("viem: events (emitWithArgs, getContractEvents)", async () => {
      const vault = await viem.deployContract("Vault", [0n]);
      await viem.assertions.emitWithArgs(
        vault.write.deposit({ value: 5n }),
        vault,
        "Deposited",
        [getAddress(owner.account.address), 5n]
      );
      const events = await publicClient.getContractEvents({
        address: vault.address,
        abi: vault.abi,
        eventName: "Deposited",
        fromBlock: 0n,
      });
      assert.equal(events.length, 1);
      assert.equal(events[0].args.amount, 5n);
    })
  );

  it(
    "viem: revertWith (reason string)",
    check("viem: revertWith (reason string)", async () => {
      const vault = await viem.deployContract("Vault", [0n]);
      await viem.assertions.revertWith(
        vault.write.deposit({ value: 0n }),
        "Vault: zero deposit"
      );
    })
  );

  it(
    "viem: revertWithCustomErrorWithArgs",
    check("viem: revertWithCustomErrorWithArgs", async () => {
      const vault = await viem.deployContract("Vault", [0n]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.sweep({ account: other.account }),
        vault,
        "NotOwner",
        [getAddress(other.account.address)]
      );
    })
  );

  it(
    "viem: revert (panic, no data)",
    check("viem: revert (panic, no data)", async () => {
      const vault = await viem.deployContract("Vault", [0n]);
      await viem.assertions.revert(vault.write.divide([1n, 0n]));
      await viem.assertions.revert(vault.read.failBare());
    })
  );

  it(
    "viem: balancesHaveChanged",
    check("viem: balancesHaveChanged", async () => {
      const vault = await viem.deployContract("Vault", [0n]);
      await viem.assertions.balancesHaveChanged(
        vault.write.deposit({ value: 1000n }),
        [{ address: vault.address, amount: 1000n }]
      );
    })
  );

  it(
    "viem: ignition.deploy in a test",
    check("viem: ignition.deploy in a test", async () => {
      const { vault, token } = await ignition.deploy(VaultModule);
      assert.equal(await token.read.totalSupply(), 10n ** 24n);
      assert.equal(await vault.read.owner(), getAddress(owner.account.address));
      assert.notEqual(
        await publicClient.getCode({ address: vault.address }),
        undefined
      );
    })
  );

  it(
    "viem: an EIP-1559 send signed by Hardhat shows node-cli's -32602 message",
    check(
      "viem: an EIP-1559 send signed by Hardhat shows node-cli's -32602 message",
      async () => {
        const keyed = await network.create("nodecliKey");
        const [local] = await keyed.viem.getWalletClients();
        let message = "";
        try {
          await local.sendTransaction({
            to: other.account.address,
            value: 1n,
            maxFeePerGas: 10n ** 9n,
            maxPriorityFeePerGas: 1n,
          });
        } catch (error) {
          message = errorChain(error);
        } finally {
          await keyed.close();
        }
        assert.match(
          message,
          /typed transaction \(type 0x02, EIP-1559\) not supported/,
          message || "the send succeeded"
        );
        return message;
      }
    )
  );
});

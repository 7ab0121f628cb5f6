// Deploys the Vault (unlock time from the module parameter, default 0: unlocked) and a Token.
import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";

export default buildModule("VaultModule", (m) => {
  const unlockTime = m.getParameter("unlockTime", 0n);
  const vault = m.contract("Vault", [unlockTime]);
  const token = m.contract("Token", [10n ** 24n]);
  return { vault, token };
});

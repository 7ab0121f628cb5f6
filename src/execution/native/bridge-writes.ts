/**
 * The Bridge's write methods as they answer a caller that is not a federator or an authorized key — what a
 * developer's account is on a local chain (rskj J/co/rsk/peg/Bridge.java `activeAndRetiringFederationOnly`,
 * `activeRetiringAndProposedFederationOnly`, BridgeMethods.java costs; BridgeSupport.registerBtcTransaction;
 * feeperkb/FeePerKbSupportImpl.java, whitelist/WhitelistSupportImpl.java, federation/FederationSupportImpl.java
 * `voteFederationChange` with AddressBasedAuthorizer; regtest keys from FederationRegTestConstants,
 * FeePerKbRegTestConstants, WhitelistRegTestConstants). Gas: the fixed cost + 2 per call-data byte. They accept
 * CALL only (RSKIP417).
 * - federator-only (receiveHeaders, updateCollections, addSignature): a non-member fails;
 * - registerBtcTransaction (public since RSKIP199): on a Bridge without BTC headers no height can have the 3
 *   confirmations required, so the reference logs "Could not validate transaction" and returns: success, no effect;
 * - votes (voteFeePerKbChange, createFederation, addFederatorPublicKeyMultikey, commitFederation,
 *   rollbackFederation) and lock-whitelist changes: -10 (UNAUTHORIZED_CALLER); a whitelist address that is not a
 *   regtest Base58 address answers -2 first (INVALID_ADDRESS_FORMAT);
 * - increaseLockingCap: a value ≤ 0 fails, otherwise false (LockingCapRegTestConstants' authorizer).
 * The authorized/federator side (their keys are known, their private keys are not; only an impersonated sender
 * reaches it) fails with "not supported by node-cli".
 *
 * By the executing block's rules (docs/reference-rules.md#rule-bridge-activations): receiveHeaders costs 22 000
 * before RSKIP124 and 66 000 + 1 650 per extra header before RSKIP132, and is open to anyone from RSKIP124 until
 * RSKIP200 (node-cli cannot take headers: "not supported"); registerBtcTransaction is federator-only before
 * RSKIP199; addFederatorPublicKeyMultikey needs RSKIP123, the one-off/unlimited whitelist methods RSKIP87 and
 * increaseLockingCap RSKIP134.
 */
import { encodeUint, type ArgReader } from './abi.js'
import { rskAddressOfKey } from './bridge-federation.js'
import { bridgeFederations } from './federation-storage.js'
import { decodeBase58check } from './curve.js'
import { dataGas, NativeContractError, since, type NativeCall, type NativeMethod } from './native-contract.js'
import type { MsgType } from './message-tracker.js'
import { bridgeStorageIsEmpty } from './bridge-storage.js'

const CALL_ONLY: readonly MsgType[] = ['CALL']

/** RSK address of a public key, lower-case hex without 0x. */
const rskAddress = (pub: Uint8Array): string => Buffer.from(rskAddressOfKey(pub)).toString('hex')

let authorizers:
  | {
      federation: Set<string>
      feePerKb: Set<string>
      lockingCap: Set<string>
      whitelist: Set<string>
    }
  | undefined

/** Authorized RSK addresses per authorizer (computed once). */
function auth() {
  const set = (keys: string[]) => new Set(keys.map((k) => rskAddress(Uint8Array.from(Buffer.from(k, 'hex')))))
  authorizers ??= {
    federation: set([
      '04dde17c5fab31ffc53c91c2390136c325bb8690dc135b0840075dd7b86910d8ab9e88baad0c32f3eea8833446a6bc5ff1cd2efa99ecb17801bcb65fc16fc7d991',
      '04af886c67231476807e2a8eee9193878b9d94e30aa2ee469a9611d20e1e1c1b438e5044148f65e6e61bf03e9d72e597cb9cdea96d6fc044001b22099f9ec403e2',
      '045d4dedf9c69ab3ea139d0f0da0ad00160b7663d01ce7a6155cd44a3567d360112b0480ab6f31cac7345b5f64862205ea7ccf555fcf218f87fa0d801008fecb61',
      '04709f002ac4642b6a87ea0a9dc76eeaa93f71b3185985817ec1827eae34b46b5d869320efb5c5cbe2a5c13f96463fe0210710b53352a4314188daffe07bd54154',
      '04aff62315e9c18004392a5d9e39496ff5794b2d9f43ab4e8ade64740d7fdfe896969be859b43f26ef5aa4b5a0d11808277b4abfa1a07cc39f2839b89cc2bc6b4c',
    ]),
    feePerKb: set([
      '0430c7d0146029db553d60cf11e8d39df1c63979ee2e4cd1e4d4289a5d88cfcbf3a09b06b5cbc88b5bfeb4b87a94cefab81c8d44655e7e813fc3e18f51cfe7e8a0',
    ]),
    lockingCap: set([
      '04450bbaab83ec48b3cb8fbb077c950ee079733041c039a8c4f1539e5181ca1a27589eeaf0fbf430e49d2909f14c767bf6909ad6845831f683416ee12b832e36ed',
    ]),
    whitelist: set([
      '04641fb250d7ca7a1cb4f530588e978013038ec4294d084d248869dd54d98873e45c61d00ceeaeeb9e35eab19fa5fbd8f07cb8a5f0ddba26b4d4b18349c09199ad',
    ]),
  }
  return authorizers
}

const callerHex = (call: NativeCall<unknown>) => Buffer.from(call.caller).toString('hex')

/** A write method with a fixed cost. */
function write<A>(
  signature: string,
  cost: bigint,
  decode: ((r: ArgReader) => A) | undefined,
  run: (call: NativeCall<A>) => Promise<Uint8Array> | Uint8Array,
): NativeMethod<A> {
  return { signature, decode, gas: (_a, data) => cost + dataGas(data), callTypes: CALL_ONLY, execute: run }
}

/**
 * Fails for callers outside the active and retiring federations (Bridge.activeAndRetiringFederationOnly: a member's
 * RSK key address), and for members too (node-cli cannot act for them).
 */
async function federatorOnly(call: NativeCall<unknown>, name: string): Promise<never> {
  const { active, retiring } = await bridgeFederations(call.input, call.host)
  const caller = callerHex(call)
  const members = [...active.members, ...(retiring?.members ?? [])]
  if (!members.some((m) => rskAddress(m.rsk) === caller)) {
    throw new NativeContractError(
      'The sender is not a member of the active or retiring federations and is therefore not authorized to ' +
        `invoke the function: '${name}'`,
    )
  }
  throw new NativeContractError(`${name} from a federator is not supported by node-cli`)
}

/** -10 for an unauthorized caller; the authorized side is not supported. */
function vote(call: NativeCall<unknown>, authorized: Set<string>, name: string): Uint8Array {
  if (!authorized.has(callerHex(call))) return encodeUint(-10n)
  throw new NativeContractError(`${name} from an authorized key is not supported by node-cli`)
}

/** Address.fromBase58 on Bitcoin regtest params: P2PKH version 111 or P2SH 196, 20-byte hash. */
function isRegtestAddress(s: string): boolean {
  try {
    const p = decodeBase58check(s)
    return p.length === 21 && (p[0] === 111 || p[0] === 196)
  } catch {
    return false
  }
}

/** The Bridge write methods node-cli answers for an unauthorized caller. */
export const bridgeWriteMethods: NativeMethod<any>[] = [
  {
    signature: 'receiveHeaders(bytes[])',
    decode: (r: ArgReader) => r.bytesArray(0),
    // Bridge.receiveHeadersGetCost: 22 000 before RSKIP124; then 66 000 + 1 650 per header after the first, from
    // RSKIP132 25 000 + 3 500
    gas: (headers: Uint8Array[], data: Uint8Array, host) => {
      if (!host.isRuleActive('rskip124')) return 22_000n + dataGas(data)
      const [base, perHeader] = host.isRuleActive('rskip132') ? [25_000n, 3_500n] : [66_000n, 1_650n]
      return base + BigInt(Math.max(headers.length - 1, 0)) * perHeader + dataGas(data)
    },
    callTypes: CALL_ONLY,
    execute: (call: NativeCall<Uint8Array[]>) => {
      // Bridge.receiveHeadersIsPublic: anyone's headers are processed from RSKIP124 until RSKIP200
      if (call.host.isRuleActive('rskip124') && !call.host.isRuleActive('rskip200'))
        throw new NativeContractError('receiveHeaders (public before RSKIP200) is not supported by node-cli')
      return federatorOnly(call, 'receiveHeaders')
    },
  },
  write('updateCollections()', 48_000n, undefined, (call) => federatorOnly(call, 'updateCollections')),
  write(
    'addSignature(bytes,bytes[],bytes)',
    70_000n,
    (r) => [r.bytes(0), r.bytesArray(1), r.bytes(2)],
    (call) => federatorOnly(call, 'addSignature'),
  ),
  write(
    'registerBtcTransaction(bytes,int256,bytes)',
    22_000n,
    (r) => [r.bytes(0), r.int(1), r.bytes(2)],
    async (call) => {
      // federator-only before RSKIP199 (Bridge.registerBtcTransactionIsPublic)
      if (!call.host.isRuleActive('rskip199')) return federatorOnly(call, 'registerBtcTransaction')
      // needs the BTC chain to be the bare genesis (no height has 3 confirmations) and no legacy processed map
      await bridgeStorageIsEmpty(call.input, 'a received BTC header chain', 'blockStoreChainHead', 'btcTxHashesAP')
      return new Uint8Array(0)
    },
  ),
  write(
    'voteFeePerKbChange(int256)',
    10_000n,
    (r) => r.int(0),
    (call) => vote(call, auth().feePerKb, 'voteFeePerKbChange'),
  ),
  write('createFederation()', 11_000n, undefined, (call) => vote(call, auth().federation, 'createFederation')),
  since(
    'rskip123',
    write(
      'addFederatorPublicKeyMultikey(bytes,bytes,bytes)',
      13_000n,
      (r) => [r.bytes(0), r.bytes(1), r.bytes(2)],
      (call) => vote(call, auth().federation, 'addFederatorPublicKeyMultikey'),
    ),
  ),
  write(
    'commitFederation(bytes)',
    38_000n,
    (r) => r.bytes(0),
    (call) => vote(call, auth().federation, 'commitFederation'),
  ),
  write('rollbackFederation()', 12_000n, undefined, (call) => vote(call, auth().federation, 'rollbackFederation')),
  since(
    'rskip87',
    write(
      'addOneOffLockWhitelistAddress(string,int256)',
      25_000n,
      (r) => [r.string(0), r.int(1)] as const,
      (call) =>
        isRegtestAddress(call.args[0])
          ? vote(call, auth().whitelist, 'addOneOffLockWhitelistAddress')
          : encodeUint(-2n),
    ),
  ),
  since(
    'rskip87',
    write(
      'addUnlimitedLockWhitelistAddress(string)',
      25_000n,
      (r) => r.string(0),
      (call) =>
        isRegtestAddress(call.args)
          ? vote(call, auth().whitelist, 'addUnlimitedLockWhitelistAddress')
          : encodeUint(-2n),
    ),
  ),
  // LockingCapSupportImpl.increaseLockingCap: a value ≤ 0 fails the call, then an unauthorized caller gets false
  since(
    'rskip134',
    write(
      'increaseLockingCap(int256)',
      8_000n,
      (r) => r.int(0),
      (call) => {
        if (call.args <= 0n)
          throw new NativeContractError(`Locking Cap must be greater than zero. Value attempted: ${call.args}`)
        if (!auth().lockingCap.has(callerHex(call))) return encodeUint(0n)
        throw new NativeContractError('increaseLockingCap from an authorized key is not supported by node-cli')
      },
    ),
  ),
  write(
    'removeLockWhitelistAddress(string)',
    24_000n,
    (r) => r.string(0),
    (call) => vote(call, auth().whitelist, 'removeLockWhitelistAddress'),
  ),
  write(
    'setLockWhitelistDisableBlockDelay(int256)',
    24_000n,
    (r) => r.int(0),
    (call) => vote(call, auth().whitelist, 'setLockWhitelistDisableBlockDelay'),
  ),
]

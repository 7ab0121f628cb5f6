/**
 * A Bridge federation as the getters and Remasc see it, and how its redeem script and address follow from its
 * members and format (docs/reference-rules.md#rule-bridge-federation; rskj J/co/rsk/peg/federation/Federation.java,
 * StandardMultisigFederation.java, ErpFederation.java, FederationFactory.java, FederationMember.java,
 * FederationMemberPubKeysComparator.java; J/co/rsk/peg/bitcoin/P2shErpRedeemScriptBuilder.java; bitcoinj's
 * ScriptBuilder):
 * - members sorted by BTC key, then RSK key, then MST key (unsigned byte order); threshold = n/2 + 1;
 * - format 1000 (standard multisig): redeem script = <threshold> <keys sorted> <n> OP_CHECKMULTISIG, address =
 *   P2SH(redeem script);
 * - formats 3000 (P2SH ERP) and 4000 (P2SH-P2WSH ERP): redeem script = OP_NOTIF <multisig> OP_ELSE <ERP delay, csv
 *   LE> OP_CHECKSEQUENCEVERIFY OP_DROP <emergency multisig over the network's ERP keys, n/2 + 1> OP_ENDIF; address
 *   = P2SH(redeem script) for 3000, P2SH(P2WSH(redeem script)) for 4000;
 * - format 2000 (the non-standard ERP federations of the hop upgrade era): its script builder depends on the
 *   height and network; node-cli does not build it (its address and redeem script are "not supported").
 * Addresses are Base58Check with the network's P2SH version (5 on Bitcoin mainnet, 196 on testnet and regtest).
 */
import { keccak256 } from '../../crypto/keccak.js'
import { concat } from '../../util/bytes.js'
import { base58check, decodePoint, hash160, sha256 } from './curve.js'
import { NativeContractError } from './native-contract.js'

/** FederationFormatVersion values. */
export const FORMAT_STANDARD_MULTISIG = 1000
export const FORMAT_NON_STANDARD_ERP = 2000
export const FORMAT_P2SH_ERP = 3000
export const FORMAT_P2SH_P2WSH_ERP = 4000

/** One member's compressed public keys (33 bytes each). */
export interface FederationMember {
  btc: Uint8Array
  rsk: Uint8Array
  mst: Uint8Array
}

/** The network constants a federation's scripts need (FederationConstants). */
export interface FederationScriptParams {
  /** Base58 version byte of P2SH addresses on the network's Bitcoin chain. */
  p2shVersion: number
  /** The emergency (ERP) keys, compressed. */
  erpKeys: readonly Uint8Array[]
  /** The ERP activation delay (CSV value, in BTC blocks). */
  erpDelay: number
}

/** A federation as the Bridge's getters see it. */
export interface FederationView {
  /** Members, sorted (BTC key, then RSK key, then MST key). */
  members: readonly FederationMember[]
  /** Members' BTC keys, in member order. */
  btcKeys: Uint8Array[]
  /** Signatures required (n/2 + 1). */
  threshold: number
  /** Milliseconds since the epoch (Federation.getCreationTime, truncated to milliseconds). */
  creationTimeMs: bigint
  creationBlockNumber: bigint
  /** FederationFormatVersion (1000, 2000, 3000, 4000). */
  formatVersion: number
  /** The redeem script. @throws NativeContractError for a format node-cli does not build (2000) */
  readonly redeemScript: Uint8Array
  /** Base58 P2SH address. @throws NativeContractError as {@link redeemScript} */
  readonly address: string
}

/** Unsigned lexicographic byte order (UnsignedBytes.lexicographicalComparator). */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b)
}

/** FederationMember.BTC_RSK_MST_PUBKEYS_COMPARATOR. */
export function compareMembers(a: FederationMember, b: FederationMember): number {
  return compareBytes(a.btc, b.btc) || compareBytes(a.rsk, b.rsk) || compareBytes(a.mst, b.mst)
}

/** A number in a script: OP_0, OP_1..OP_16, else a minimal little-endian push (bitcoinj ScriptBuilder.number). */
function scriptNumber(n: number): Uint8Array {
  if (n === 0) return Uint8Array.of(0x00)
  if (n <= 16) return Uint8Array.of(0x50 + n)
  const le = signedLE(n)
  return concat(Uint8Array.of(le.length), le)
}

/** Bitcoin m-of-n multisig redeem script over compressed keys sorted by bytes (bitcoinj createRedeemScript). */
export function multisigScript(m: number, keys: readonly Uint8Array[]): Uint8Array {
  const sorted = [...keys].sort(compareBytes)
  const parts: Uint8Array[] = [scriptNumber(m)]
  for (const k of sorted) parts.push(Uint8Array.of(k.length), k)
  parts.push(scriptNumber(keys.length), Uint8Array.of(0xae)) // OP_CHECKMULTISIG
  return concat(...parts)
}

/** bitcoinj Utils.signedLongToByteArrayLE: minimal little-endian, with a sign byte when the top bit is set. */
function signedLE(value: number): Uint8Array {
  const out: number[] = []
  let v = value
  while (v > 0) {
    out.push(v & 0xff)
    v = Math.floor(v / 256)
  }
  if (out.length > 0 && out[out.length - 1]! & 0x80) out.push(0)
  return Uint8Array.from(out)
}

/** P2shErpRedeemScriptBuilder.of: the ERP redeem script. */
export function erpRedeemScript(
  keys: readonly Uint8Array[],
  threshold: number,
  erpKeys: readonly Uint8Array[],
  erpThreshold: number,
  csv: number,
): Uint8Array {
  const csvBytes = signedLE(csv)
  return concat(
    Uint8Array.of(0x64), // OP_NOTIF
    multisigScript(threshold, keys),
    Uint8Array.of(0x67, csvBytes.length), // OP_ELSE, push
    csvBytes,
    Uint8Array.of(0xb2, 0x75), // OP_CHECKSEQUENCEVERIFY OP_DROP
    multisigScript(erpThreshold, erpKeys),
    Uint8Array.of(0x68), // OP_ENDIF
  )
}

/** ScriptBuilder.createP2SHP2WSHOutputScript's P2SH hash: hash160(OP_0 PUSH32 sha256(script)). */
export function p2shP2wshHash(redeemScript: Uint8Array): Uint8Array {
  return hash160(concat(Uint8Array.of(0x00, 0x20), sha256(redeemScript)))
}

/**
 * A federation of `members` (any order) in format `formatVersion` on a network; scripts and address are built on
 * first use.
 * @param creationTimeMs milliseconds since the epoch
 */
export function federation(
  members: readonly FederationMember[],
  creationTimeMs: bigint,
  creationBlockNumber: bigint,
  formatVersion: number,
  params: FederationScriptParams,
): FederationView {
  const sorted = [...members].sort(compareMembers)
  const btcKeys = sorted.map((m) => m.btc)
  const threshold = Math.floor(sorted.length / 2) + 1
  let script: Uint8Array | undefined
  let address: string | undefined
  const redeemScript = (): Uint8Array => {
    if (script !== undefined) return script
    if (formatVersion === FORMAT_NON_STANDARD_ERP) {
      throw new NativeContractError('a non-standard ERP federation (format 2000) is not supported by node-cli')
    }
    const erp = formatVersion === FORMAT_P2SH_ERP || formatVersion === FORMAT_P2SH_P2WSH_ERP
    script = erp
      ? erpRedeemScript(btcKeys, threshold, params.erpKeys, Math.floor(params.erpKeys.length / 2) + 1, params.erpDelay)
      : multisigScript(threshold, btcKeys)
    return script
  }
  return {
    members: sorted,
    btcKeys,
    threshold,
    creationTimeMs,
    creationBlockNumber,
    formatVersion,
    get redeemScript() {
      return redeemScript()
    },
    get address() {
      if (address === undefined) {
        const s = redeemScript()
        const hash = formatVersion === FORMAT_P2SH_P2WSH_ERP ? p2shP2wshHash(s) : hash160(s)
        address = base58check(concat(Uint8Array.of(params.p2shVersion), hash))
      }
      return address
    },
  }
}

/** A member whose three keys are one (FederationMember.getFederationMemberFromKey). */
export const singleKeyMember = (key: Uint8Array): FederationMember => ({ btc: key, rsk: key, mst: key })

/** RSK address of a public key, 20 bytes (keccak256 of the 64-byte uncompressed key, last 20 bytes). */
export function rskAddressOfKey(pub: Uint8Array): Uint8Array {
  return keccak256(decodePoint(pub).toBytes(false).subarray(1)).subarray(12)
}

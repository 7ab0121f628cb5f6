/**
 * The regtest genesis federation the Bridge answers about while its storage holds no elected federation
 * (rskj J/co/rsk/peg/federation/FederationSupportImpl.java `getGenesisFederation`; constants in
 * J/co/rsk/peg/constants/BridgeRegTestConstants.java and J/co/rsk/peg/federation/constants/
 * FederationRegTestConstants.java; scripts per J/co/rsk/peg/bitcoin/P2shErpRedeemScriptBuilder.java,
 * J/co/rsk/peg/federation/ErpFederation.java and bitcoinj's ScriptBuilder):
 * - members: the three regtest federator keys (BTC = RSK = MST key), sorted by key bytes;
 * - creation time 2016-01-01T00:00:00Z, creation block number 1;
 * - type P2SH-P2WSH ERP: redeem script = OP_NOTIF <2-of-3 multisig> OP_ELSE <500 (csv, LE)> OP_CSV OP_DROP
 *   <3-of-4 emergency multisig> OP_ENDIF; output script = P2SH(P2WSH(redeem script)); address = Base58Check
 *   with the Bitcoin regtest P2SH version 196 ("2…").
 */
import { concat } from '../../util/bytes.js'
import { base58check, hash160, sha256 } from './curve.js'
import { multisigRedeemScript } from './hd-wallet-utils.js'

const hex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'))

/** BridgeRegTestConstants.DEFAULT_FEDERATION_PUBLIC_KEYS (compressed BTC keys), in the constants' order. */
export const REGTEST_FEDERATION_KEYS: readonly Uint8Array[] = [
  '0362634ab57dae9cb373a5d536e66a8c4f67468bbcfb063809bab643072d78a124',
  '03c5946b3fbae03a654237da863c9ed534e0878657175b132b8ca630f245df04db',
  '02cd53fc53a07f211641a677d250f6de99caf620e8e77071e811a28b3bcddf0be1',
].map(hex)

/** FederationRegTestConstants.erpFedPubKeysList. */
export const REGTEST_ERP_KEYS: readonly Uint8Array[] = [
  '03b9fc46657cf72a1afa007ecf431de1cd27ff5cc8829fa625b66ca47b967e6b24',
  '029cecea902067992d52c38b28bf0bb2345bda9b21eca76b16a17c477a64e43301',
  '03284178e5fbcc63c54c3b38e3ef88adf2da6c526313650041b0ef955763634ebd',
  '03ab0e2cd7ed158687fc13b88019990860cdb72b1f5777b58513312550ea1584bc',
].map(hex)

/** FederationRegTestConstants.erpFedActivationDelay (the CSV value, in BTC blocks). */
export const REGTEST_ERP_ACTIVATION_DELAY = 500

/** genesisFederationCreationTime, seconds since the epoch (2016-01-01T00:00:00Z). */
export const REGTEST_FEDERATION_CREATION_TIME = 1_451_606_400n

/** FederationSupportImpl.getGenesisFederation: genesisFederationCreationBlockNumber. */
export const GENESIS_FEDERATION_CREATION_BLOCK = 1n

/** Bitcoin regtest P2SH address version (bitcoinj RegTestParams.p2shHeader). */
const REGTEST_P2SH_VERSION = 196

/** A federation as the Bridge's getters see it. */
export interface FederationView {
  /** Members' BTC keys, sorted (Federation sorts members by their BTC key). */
  btcKeys: Uint8Array[]
  /** Signatures required (n/2 + 1). */
  threshold: number
  /** Seconds since the epoch. */
  creationTime: bigint
  creationBlockNumber: bigint
  redeemScript: Uint8Array
  /** Base58 P2SH address. */
  address: string
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
  keys: Uint8Array[],
  threshold: number,
  erpKeys: Uint8Array[],
  erpThreshold: number,
  csv: number,
): Uint8Array {
  const csvBytes = signedLE(csv)
  return concat(
    Uint8Array.of(0x64), // OP_NOTIF
    multisigRedeemScript(threshold, keys),
    Uint8Array.of(0x67, csvBytes.length), // OP_ELSE, push
    csvBytes,
    Uint8Array.of(0xb2, 0x75), // OP_CHECKSEQUENCEVERIFY OP_DROP
    multisigRedeemScript(erpThreshold, erpKeys),
    Uint8Array.of(0x68), // OP_ENDIF
  )
}

/** ScriptBuilder.createP2SHP2WSHOutputScript's P2SH hash: hash160(OP_0 PUSH32 sha256(script)). */
export function p2shP2wshHash(redeemScript: Uint8Array): Uint8Array {
  return hash160(concat(Uint8Array.of(0x00, 0x20), sha256(redeemScript)))
}

let genesis: FederationView | undefined

/** The regtest genesis federation (computed once). */
export function regtestGenesisFederation(): FederationView {
  if (genesis === undefined) {
    const btcKeys = [...REGTEST_FEDERATION_KEYS].sort((a, b) => Buffer.compare(a, b))
    const threshold = Math.floor(btcKeys.length / 2) + 1
    const erpThreshold = Math.floor(REGTEST_ERP_KEYS.length / 2) + 1
    const redeemScript = erpRedeemScript(
      btcKeys,
      threshold,
      [...REGTEST_ERP_KEYS],
      erpThreshold,
      REGTEST_ERP_ACTIVATION_DELAY,
    )
    genesis = {
      btcKeys,
      threshold,
      creationTime: REGTEST_FEDERATION_CREATION_TIME,
      creationBlockNumber: GENESIS_FEDERATION_CREATION_BLOCK,
      redeemScript,
      address: base58check(concat(Uint8Array.of(REGTEST_P2SH_VERSION), p2shP2wshHash(redeemScript))),
    }
  }
  return genesis
}

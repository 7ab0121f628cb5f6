/**
 * web3_* and net_* methods (docs/reference-rules.md#rule-node-info).
 */
import { keccak256 } from '../../crypto/secp256k1.js'
import { toHex } from '../../util/bytes.js'
import { method, type MethodSpec } from '../method-table.js'
import { P } from '../params.js'
import type { Services } from '../services.js'

/** The web3_ and net_ methods. */
export function web3NetMethods(s: Services): MethodSpec[] {
  return [
    method('web3_clientVersion', 'web3', 'client version string', [], () => s.clientVersion),
    method('web3_sha3', 'web3', 'Keccak-256 of DATA', [P.data('data')], (_c, data) => toHex(keccak256(data))),
    method('net_version', 'net', 'network id as a decimal string', [], () => String(s.network)),
    method('net_listening', 'net', 'always true', [], () => true),
    method('net_peerCount', 'net', 'number of peers (a local node has none)', [], () => '0x0'),
  ]
}

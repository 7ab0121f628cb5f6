/**
 * Node, peer and mining-info methods of a local node without peers (docs/reference-rules.md#rule-node-info; rskj
 * Web3Impl.java): net_peerList, eth_netHashrate (a JSON number, reference), ext_protocolVersion,
 * debug_wireProtocolQueueSize, and the sco_ (peer scoring) module — empty but correctly shaped, with the banned-address
 * list kept.
 */
import { isIP } from 'node:net'
import { invalidParams } from '../rpc-error.js'
import { method, type MethodSpec } from '../method-table.js'
import { P } from '../params.js'
import { PROTOCOL_VERSION } from './eth.js'

/**
 * Parses an IPv4/IPv6 address with an optional `/bits` mask (reference PeerScoringManager.banAddress).
 * @returns the normalized text
 * @throws RpcError -32602 "invalid banned address <text>"
 */
export function parseBannedAddress(text: string): string {
  const [addr, bits, extra] = text.split('/')
  const family = isIP(addr ?? '')
  if (extra !== undefined || family === 0) throw invalidParams(`invalid banned address ${text}`)
  if (bits !== undefined) {
    const n = Number(bits)
    if (!Number.isInteger(n) || n < 0 || n > (family === 4 ? 32 : 128))
      throw invalidParams(`invalid banned address ${text}`)
    return `${addr!.toLowerCase()}/${n}`
  }
  return addr!.toLowerCase()
}

/** The counters of sco_reputationSummary (reference PeerScoringReputationSummary), all zero with no peers. */
const EMPTY_SUMMARY = {
  count: 0,
  successfulHandshakes: 0,
  failedHandshakes: 0,
  invalidHeader: 0,
  validBlocks: 0,
  invalidBlocks: 0,
  validTransactions: 0,
  invalidTransactions: 0,
  invalidNetworks: 0,
  invalidMessages: 0,
  repeatedMessages: 0,
  timeoutMessages: 0,
  unexpectedMessages: 0,
  peersTotalScore: 0,
  punishments: 0,
  goodReputationCount: 0,
  badReputationCount: 0,
}

/** net_peerList, eth_netHashrate, ext_protocolVersion, debug_wireProtocolQueueSize and sco_*. */
export function nodeInfoMethods(): MethodSpec[] {
  const banned = new Set<string>()
  return [
    method('net_peerList', 'net', 'known peers (none on a local node)', [], () => []),
    method('eth_netHashrate', 'eth', 'network hash rate, a JSON number (reference)', [], () => 0),
    method('ext_protocolVersion', 'ext', 'chain protocol version', [], () => PROTOCOL_VERSION),
    method('debug_wireProtocolQueueSize', 'debug', 'messages queued for peers (hex)', [], () => '0x0'),
    method('sco_banAddress', 'sco', 'bans an IP address or block (addr/bits)', [P.string('address')], (_c, a) => {
      banned.add(parseBannedAddress(a))
      return null
    }),
    method('sco_unbanAddress', 'sco', 'removes a banned IP address or block', [P.string('address')], (_c, a) => {
      banned.delete(parseBannedAddress(a))
      return null
    }),
    method('sco_peerList', 'sco', 'peer scoring information (none on a local node)', [], () => []),
    method('sco_bannedAddresses', 'sco', 'banned addresses and blocks', [], () => [...banned]),
    method('sco_reputationSummary', 'sco', 'reputation counters of all peers', [], () => ({ ...EMPTY_SUMMARY })),
    method('sco_clearPeerScoring', 'sco', "clears a peer's scoring; returns the peer list", [P.string('id')], () => []),
  ]
}

/**
 * Node, peer and mining information of a local node without peers, the sco_ (peer scoring) module, the
 * methods the spec lists as not available, and the RPC module switches (spec §4 "Support status" and
 * "Node and network information"; docs/reference-rules.md#rule-node-info, docs/reference-rules.md#rule-unavailable-methods,
 * docs/reference-rules.md#rule-modules-default):
 * net_peerList, eth_netHashrate (a JSON number), eth_hashrate, eth_mining, ext_protocolVersion /
 * eth_protocolVersion, debug_wireProtocolQueueSize, sco_*, eth_compileSolidity & co., createNode({ rpcModules }).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNode, type Node } from '../../src/index.js'
import { rpc, rpcError, startNode } from '../helpers/node.js'

/** Counters of the reference's PeerScoringReputationSummary (docs/reference-rules.md#rule-node-info). */
const SUMMARY_FIELDS = [
  'count',
  'successfulHandshakes',
  'failedHandshakes',
  'invalidHeader',
  'validBlocks',
  'invalidBlocks',
  'validTransactions',
  'invalidTransactions',
  'invalidNetworks',
  'invalidMessages',
  'repeatedMessages',
  'timeoutMessages',
  'unexpectedMessages',
  'peersTotalScore',
  'punishments',
  'goodReputationCount',
  'badReputationCount',
]

let node: Node
let url: string

beforeAll(async () => {
  node = await startNode()
  url = node.url
})
afterAll(() => node?.close())

describe('peer and mining information', () => {
  it('net_peerList → []', async () => {
    expect(await rpc(url, 'net_peerList')).toEqual([])
  })

  it('eth_netHashrate → the JSON number 0 (reference), eth_hashrate → "0x0"', async () => {
    const { body } = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_netHashrate', params: [] }),
    }).then(async (r) => ({ body: await r.text() }))
    expect(body).toBe('{"jsonrpc":"2.0","id":1,"result":0}')
    expect(await rpc(url, 'eth_hashrate')).toBe('0x0')
  })

  it('eth_mining → true (instant mining)', async () => {
    expect(await rpc(url, 'eth_mining')).toBe(true)
  })

  it('ext_protocolVersion and eth_protocolVersion → "0x3e"', async () => {
    expect(await rpc(url, 'ext_protocolVersion')).toBe('0x3e')
    expect(await rpc(url, 'eth_protocolVersion')).toBe('0x3e')
  })

  it('debug_wireProtocolQueueSize → "0x0"', async () => {
    expect(await rpc(url, 'debug_wireProtocolQueueSize')).toBe('0x0')
  })

  it('extra params → -32602', async () => {
    expect((await rpcError(url, 'net_peerList', [1])).code).toBe(-32602)
  })
})

describe('sco_ (peer scoring)', () => {
  it('sco_peerList → []; sco_clearPeerScoring → []', async () => {
    expect(await rpc(url, 'sco_peerList')).toEqual([])
    expect(await rpc(url, 'sco_clearPeerScoring', ['0x' + 'ab'.repeat(64)])).toEqual([])
  })

  it('sco_reputationSummary: the reference counters, all 0 (JSON numbers)', async () => {
    const s = await rpc(url, 'sco_reputationSummary')
    expect(Object.keys(s).sort()).toEqual([...SUMMARY_FIELDS].sort())
    for (const f of SUMMARY_FIELDS) expect(s[f], f).toBe(0)
  })

  it('sco_banAddress / sco_unbanAddress → null; sco_bannedAddresses keeps the list (IPv4, IPv6, addr/bits)', async () => {
    expect(await rpc(url, 'sco_bannedAddresses')).toEqual([])
    for (const a of ['192.168.1.10', '2001:db8::1', '10.0.0.0/8', 'fe80::/64']) {
      expect(await rpc(url, 'sco_banAddress', [a])).toBeNull()
    }
    expect((await rpc<string[]>(url, 'sco_bannedAddresses')).sort()).toEqual([
      '10.0.0.0/8',
      '192.168.1.10',
      '2001:db8::1',
      'fe80::/64',
    ])
    // banning twice keeps one entry
    expect(await rpc(url, 'sco_banAddress', ['192.168.1.10'])).toBeNull()
    expect((await rpc<string[]>(url, 'sco_bannedAddresses')).filter((a) => a === '192.168.1.10')).toHaveLength(1)

    expect(await rpc(url, 'sco_unbanAddress', ['192.168.1.10'])).toBeNull()
    expect(await rpc(url, 'sco_unbanAddress', ['10.0.0.0/8'])).toBeNull()
    expect((await rpc<string[]>(url, 'sco_bannedAddresses')).sort()).toEqual(['2001:db8::1', 'fe80::/64'])
    // unbanning what is not banned is fine
    expect(await rpc(url, 'sco_unbanAddress', ['1.2.3.4'])).toBeNull()
  })

  it('an invalid address → -32602 "invalid banned address …"', async () => {
    for (const bad of ['not-an-ip', '300.1.1.1', '10.0.0.0/33', 'fe80::/129', '1.2.3.4/x', '1.2.3.4/8/8', '']) {
      const e = await rpcError(url, 'sco_banAddress', [bad])
      expect(e.code, bad).toBe(-32602)
      expect(e.message).toBe(`invalid banned address ${bad}`)
    }
    expect((await rpcError(url, 'sco_unbanAddress', ['nope'])).message).toBe('invalid banned address nope')
    expect((await rpcError(url, 'sco_banAddress', [42])).code).toBe(-32602)
  })
})

describe('methods the spec lists as not available → -32601 with the reason', () => {
  const cases: [string, RegExp][] = [
    ['eth_getCompilers', /compilers/],
    ['eth_compileLLL', /compilers/],
    ['eth_compileSolidity', /compilers/],
    ['eth_compileSerpent', /compilers/],
    ['db_putString', /deprecated/],
    ['db_getString', /deprecated/],
    ['db_putHex', /deprecated/],
    ['db_getHex', /deprecated/],
    ['shh_version', /Whisper/],
    ['shh_post', /Whisper/],
    ['shh_newIdentity', /Whisper/],
    ['shh_hasIdentity', /Whisper/],
    ['shh_newGroup', /Whisper/],
    ['shh_addToGroup', /Whisper/],
    ['shh_newFilter', /Whisper/],
    ['shh_uninstallFilter', /Whisper/],
    ['shh_getFilterChanges', /Whisper/],
    ['shh_getMessages', /Whisper/],
  ]
  it.each(cases)('%s', async (m, reason) => {
    const e = await rpcError(url, m, [])
    expect(e.code).toBe(-32601)
    expect(e.message).toContain(m)
    expect(e.message).toMatch(reason)
  })

  it('an unknown method → -32601 "method not found"', async () => {
    const e = await rpcError(url, 'eth_noSuchMethod', [])
    expect([e.code, e.message]).toEqual([-32601, 'method not found'])
  })
})

describe('RPC module switches (createNode({ rpcModules }))', () => {
  it("['eth','net','web3']: sco_ and txpool_ → -32601 \"the method … does not exist/is not available\"", async () => {
    const only = await startNode({ rpcModules: ['eth', 'net', 'web3'] })
    try {
      for (const m of [
        'sco_peerList',
        'sco_bannedAddresses',
        'txpool_status',
        'txpool_content',
        'debug_wireProtocolQueueSize',
        'ext_protocolVersion',
      ]) {
        const e = await rpcError(only.url, m, [])
        expect([e.code, e.message]).toEqual([-32601, `the method ${m} does not exist/is not available`])
      }
      expect(await rpc(only.url, 'eth_chainId')).toBe('0x21')
      expect(await rpc(only.url, 'net_version')).toBe('33')
      expect(await rpc(only.url, 'web3_sha3', ['0x'])).toMatch(/^0x[0-9a-f]{64}$/)
      expect(await rpc(only.url, 'net_peerList')).toEqual([])
      // unavailable methods keep their reason
      expect((await rpcError(only.url, 'eth_compileSolidity', [])).message).toMatch(/compilers/)
    } finally {
      await only.close()
    }
  })

  it("['-sco'] disables only sco", async () => {
    const noSco = await startNode({ rpcModules: ['-sco'] })
    try {
      const e = await rpcError(noSco.url, 'sco_reputationSummary', [])
      expect([e.code, e.message]).toEqual([-32601, 'the method sco_reputationSummary does not exist/is not available'])
      expect(await rpc(noSco.url, 'txpool_status')).toEqual({ pending: 0, queued: 0 })
      expect(await rpc(noSco.url, 'debug_wireProtocolQueueSize')).toBe('0x0')
      expect(await rpc(noSco.url, 'ext_protocolVersion')).toBe('0x3e')
      expect(await rpc(noSco.url, 'eth_blockNumber')).toBe('0x0')
    } finally {
      await noSco.close()
    }
  })

  it('an unknown module name makes createNode throw', async () => {
    await expect(createNode({ port: 0, rpcModules: ['eth', 'bogus'] })).rejects.toThrow(/unknown RPC module "bogus"/)
    await expect(createNode({ port: 0, rpcModules: ['-nope'] })).rejects.toThrow(/unknown RPC module "nope"/)
  })
})

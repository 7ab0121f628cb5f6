/**
 * The home page: chain id, latest block number, the recent blocks and their transactions, kept live by the
 * WebSocket head subscription (./live.ts coalesces renders to ~4/s; only blocks not yet loaded are fetched).
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { AddressLink, BlockLink, Fields, TxLink } from '../components.js'
import { age, isRemasc, num, rbtc, short } from '../format.js'
import { subscribeHeads } from '../live.js'
import { rpc } from '../rpc.js'
import type { RpcBlock, RpcTx } from '../types.js'

/** How many recent blocks the home page lists. */
const RECENT = 10

/** Loads the newest {@link RECENT} blocks up to `head`, reusing those already in `cache`. */
async function recentBlocks(head: number, cache: Map<number, RpcBlock<RpcTx>>): Promise<RpcBlock<RpcTx>[]> {
  const numbers = Array.from({ length: Math.min(RECENT, head + 1) }, (_, i) => head - i)
  const blocks = await Promise.all(
    numbers.map(async (n) => {
      const hit = cache.get(n)
      if (hit) return hit
      const b = await rpc<RpcBlock<RpcTx> | null>('eth_getBlockByNumber', [`0x${n.toString(16)}`, true])
      if (b) cache.set(n, b)
      return b
    }),
  )
  for (const n of cache.keys()) if (n <= head - RECENT || n > head) cache.delete(n)
  return blocks.filter((b): b is RpcBlock<RpcTx> => b !== null)
}

/** The home page. */
export function Home() {
  const [chainId, setChainId] = useState<number>()
  const [blocks, setBlocks] = useState<RpcBlock<RpcTx>[]>([])
  const [error, setError] = useState<string>()
  const cache = useRef(new Map<number, RpcBlock<RpcTx>>())
  const loading = useRef(false)
  const wanted = useRef<number | undefined>(undefined)

  useEffect(() => {
    let live = true
    // one load at a time; heads that arrive meanwhile are folded into the next one
    const load = async (): Promise<void> => {
      if (loading.current) return
      loading.current = true
      try {
        while (live && wanted.current !== undefined) {
          const head = wanted.current
          wanted.current = undefined
          const list = await recentBlocks(head, cache.current)
          if (live) setBlocks(list)
        }
      } catch (e) {
        if (live) setError(e instanceof Error ? e.message : String(e))
      } finally {
        loading.current = false
      }
    }
    rpc<string>('eth_chainId').then(
      (id) => live && setChainId(num(id)),
      (e: Error) => live && setError(e.message),
    )
    rpc<string>('eth_blockNumber').then(
      (n) => {
        wanted.current = Math.max(wanted.current ?? 0, num(n))
        void load()
      },
      (e: Error) => live && setError(e.message),
    )
    const off = subscribeHeads((h) => {
      wanted.current = Math.max(wanted.current ?? 0, num(h.number))
      void load()
    })
    return () => {
      live = false
      off()
    }
  }, [])

  const latest = blocks[0]
  const txs = blocks.flatMap((b) => b.transactions).slice(0, 20)
  return (
    <section>
      <h1>Overview</h1>
      {error !== undefined && <p class="error">Error: {error}</p>}
      <Fields
        rows={[
          ['Chain ID', chainId ?? '…'],
          ['Latest block', latest ? <BlockLink number={num(latest.number)} /> : '…'],
        ]}
      />
      <div class="columns">
        <div>
          <h2>Recent blocks</h2>
          <table>
            <thead>
              <tr>
                <th>Block</th>
                <th>Age</th>
                <th>Txs</th>
                <th>Gas used</th>
              </tr>
            </thead>
            <tbody>
              {blocks.map((b) => (
                <tr key={b.hash}>
                  <td>
                    <BlockLink number={num(b.number)} />
                  </td>
                  <td>{age(num(b.timestamp) * 1000)}</td>
                  <td>{b.transactions.length}</td>
                  <td>{num(b.gasUsed).toLocaleString('en-US')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div>
          <h2>Recent transactions</h2>
          <table>
            <thead>
              <tr>
                <th>Transaction</th>
                <th>From → To</th>
                <th>Value</th>
              </tr>
            </thead>
            <tbody>
              {txs.map((tx) => (
                <tr key={tx.hash}>
                  <td class="nowrap">
                    <TxLink hash={tx.hash} text={short(tx.hash)} />
                  </td>
                  <td>
                    {isRemasc(tx) ? (
                      'Remasc (system transaction)'
                    ) : (
                      <>
                        <AddressLink address={tx.from} short /> →{' '}
                        {tx.to ? <AddressLink address={tx.to} short /> : 'contract creation'}
                      </>
                    )}
                  </td>
                  <td class="nowrap">{rbtc(tx.value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </section>
  )
}

/**
 * The address page (`/address/<address>`): balance in RBTC, nonce, code size and the contract marker (with its
 * artifact's name), and its transactions, 25 a page, newest first (ots_searchTransactionsBefore / After; "history
 * unavailable" when the node does not serve them).
 */
import { useState } from 'preact/hooks'
import { AddressLink, BlockLink, Fields, Show, TxLink, useLoad } from '../components.js'
import { useContract } from '../contracts.js'
import { big, num, rbtc, short } from '../format.js'
import { rpc, RpcError } from '../rpc.js'
import type { OtsSearchPage } from '../types.js'

/** Transactions per history page. */
const PAGE_SIZE = 25

/** Which history page: the newest, or the one before / after a block. */
type Cursor = { dir: 'before' | 'after'; block: number }

interface Account {
  balance: string
  nonce: string
  code: string
}

async function loadAccount(address: string): Promise<Account> {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error(`not an address: ${address}`)
  const [balance, nonce, code] = await Promise.all([
    rpc<string>('eth_getBalance', [address, 'latest']),
    rpc<string>('eth_getTransactionCount', [address, 'latest']),
    rpc<string>('eth_getCode', [address, 'latest']),
  ])
  return { balance, nonce, code }
}

async function loadHistory(address: string, cursor: Cursor): Promise<OtsSearchPage | string> {
  const method = cursor.dir === 'before' ? 'ots_searchTransactionsBefore' : 'ots_searchTransactionsAfter'
  try {
    return await rpc<OtsSearchPage>(method, [address, cursor.block, PAGE_SIZE])
  } catch (e) {
    if (e instanceof RpcError) return `history unavailable (${e.message})`
    throw e
  }
}

function History({ address }: { address: string }) {
  const [cursor, setCursor] = useState<Cursor>({ dir: 'before', block: 0 })
  const state = useLoad(() => loadHistory(address, cursor), [address, cursor.dir, cursor.block])
  return (
    <Show state={state}>
      {(page) => {
        if (typeof page === 'string') return <p class="dim">{page}</p>
        if (page.txs.length === 0) return <p class="dim">No transactions.</p>
        const first = page.txs[0]
        const last = page.txs[page.txs.length - 1]
        return (
          <>
            <table>
              <thead>
                <tr>
                  <th>Transaction</th>
                  <th>Block</th>
                  <th>From</th>
                  <th>To</th>
                  <th>Value</th>
                  <th>Status</th>
                </tr>
              </thead>
              <tbody>
                {page.txs.map((tx, i) => (
                  <tr key={tx.hash}>
                    <td class="nowrap">
                      <TxLink hash={tx.hash} text={short(tx.hash)} />
                    </td>
                    <td>{tx.blockNumber && <BlockLink number={num(tx.blockNumber)} />}</td>
                    <td>
                      <AddressLink address={tx.from} />
                    </td>
                    <td>
                      <AddressLink address={tx.to ?? page.receipts[i]?.contractAddress} />
                    </td>
                    <td class="nowrap">{rbtc(tx.value)}</td>
                    <td>{big(page.receipts[i]?.status) === 1n ? 'Success' : 'Reverted'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p class="nav">
              {!page.firstPage && first?.blockNumber && (
                <button type="button" onClick={() => setCursor({ dir: 'after', block: num(first.blockNumber) })}>
                  ← Newer
                </button>
              )}{' '}
              {!page.lastPage && last?.blockNumber && (
                <button type="button" onClick={() => setCursor({ dir: 'before', block: num(last.blockNumber) })}>
                  Older →
                </button>
              )}
            </p>
          </>
        )
      }}
    </Show>
  )
}

/** The address page. */
export function AddressPage({ address }: { address: string }) {
  const state = useLoad(() => loadAccount(address), [address])
  const info = useContract(address)
  return (
    <section>
      <h1>Address</h1>
      <p class="mono">{address}</p>
      <Show state={state}>
        {(a) => {
          const codeSize = (a.code.length - 2) / 2
          return (
            <Fields
              rows={[
                ['Balance', rbtc(a.balance)],
                ['Nonce', num(a.nonce)],
                ['Type', codeSize > 0 ? `Contract (${codeSize.toLocaleString('en-US')} bytes of code)` : 'Account'],
                ...(info
                  ? [['Contract name', `${info.name}${info.source ? ` (${info.source})` : ''}`] as [string, string]]
                  : []),
              ]}
            />
          )
        }}
      </Show>
      <h2>Transactions</h2>
      <History key={address} address={address} />
    </section>
  )
}

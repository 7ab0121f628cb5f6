/**
 * The block page (`/block/<number>` or `/block/<hash>`): the header fields, the chain's minimumGasPrice and
 * paidFees, and the transactions, the last one (to the Remasc contract) marked as the Remasc system transaction.
 */
import { AddressLink, Fields, Show, TxLink, useLoad } from '../components.js'
import { big, grouped, isRemasc, num, rbtc, time } from '../format.js'
import { rpc } from '../rpc.js'
import type { RpcBlock, RpcTx } from '../types.js'

/** Loads a block by number (decimal or 0x hex) or by 32-byte hash, with its transactions. */
async function loadBlock(id: string): Promise<RpcBlock<RpcTx>> {
  let block: RpcBlock<RpcTx> | null
  if (/^0x[0-9a-fA-F]{64}$/.test(id)) block = await rpc('eth_getBlockByHash', [id, true])
  else if (/^(\d+|0x[0-9a-fA-F]+)$/.test(id))
    block = await rpc('eth_getBlockByNumber', [`0x${BigInt(id).toString(16)}`, true])
  else if (id === 'latest') block = await rpc('eth_getBlockByNumber', ['latest', true])
  else throw new Error(`not a block number or hash: ${id}`)
  if (block === null) throw new Error(`block ${id} not found`)
  return block
}

/** The block page. */
export function BlockPage({ id }: { id: string }) {
  const state = useLoad(() => loadBlock(id), [id])
  return (
    <Show state={state}>
      {(b) => {
        const n = num(b.number)
        return (
          <section>
            <h1>Block {n}</h1>
            <p class="nav">
              {n > 0 && <a href={`/block/${n - 1}`}>← Block {n - 1}</a>} <a href={`/block/${n + 1}`}>Block {n + 1} →</a>
            </p>
            <Fields
              rows={[
                ['Block number', n],
                ['Hash', <span class="mono">{b.hash}</span>],
                [
                  'Parent hash',
                  n > 0 ? (
                    <a href={`/block/${b.parentHash}`} class="mono">
                      {b.parentHash}
                    </a>
                  ) : (
                    b.parentHash
                  ),
                ],
                ['Timestamp', time(b.timestamp)],
                ['Miner', <AddressLink address={b.miner} />],
                [
                  'Gas used',
                  `${grouped(big(b.gasUsed))} of ${grouped(big(b.gasLimit))} (${
                    big(b.gasLimit) > 0n ? ((num(b.gasUsed) / num(b.gasLimit)) * 100).toFixed(2) : '0'
                  } %)`,
                ],
                ['Gas limit', grouped(big(b.gasLimit))],
                ['Minimum gas price', `${grouped(big(b.minimumGasPrice))} wei`],
                ['Paid fees', rbtc(b.paidFees)],
                ['Transactions', b.transactions.length],
              ]}
            />
            <h2>Transactions</h2>
            <table>
              <thead>
                <tr>
                  <th>#</th>
                  <th>Hash</th>
                  <th>From</th>
                  <th>To</th>
                  <th>Value</th>
                </tr>
              </thead>
              <tbody>
                {b.transactions.map((tx, i) => (
                  <tr key={tx.hash}>
                    <td>{i}</td>
                    <td>
                      <TxLink hash={tx.hash} />
                      {isRemasc(tx) && i === b.transactions.length - 1 && (
                        <div class="tag">Remasc (system transaction)</div>
                      )}
                    </td>
                    <td>
                      <AddressLink address={tx.from} />
                    </td>
                    <td>
                      <AddressLink address={tx.to} />
                    </td>
                    <td>{rbtc(tx.value)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        )
      }}
    </Show>
  )
}

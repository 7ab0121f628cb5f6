/**
 * The transaction page (`/tx/<hash>`): status, block, parties, value, gas; the decoded call, revert reason or
 * custom error, logs (decoded when the ABI is known), the internal call tree (ots_traceTransaction) and the
 * console.log lines the transaction printed.
 */
import { AddressLink, BlockLink, Fields, Show, useLoad } from '../components.js'
import { consoleLines, contractInfo, useContract } from '../contracts.js'
import { decodeCall, decodeLog, decodeRevert, signatureLine, type Decoded } from '../decode.js'
import { big, grouped, isRemasc, num, rbtc } from '../format.js'
import { rpc, RpcError } from '../rpc.js'
import type { OtsFrame, RpcLog, RpcReceipt, RpcTx } from '../types.js'

/** Everything the page shows, loaded together. */
interface TxView {
  tx: RpcTx
  receipt: RpcReceipt | null
  abi?: readonly unknown[]
  revert?: { data: string; decoded?: Decoded }
  trace?: OtsFrame[] | string
  console: string[] | null
}

async function loadTx(hash: string): Promise<TxView> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new Error(`not a transaction hash: ${hash}`)
  const [tx, receipt] = await Promise.all([
    rpc<RpcTx | null>('eth_getTransactionByHash', [hash]),
    rpc<RpcReceipt | null>('eth_getTransactionReceipt', [hash]),
  ])
  if (tx === null) throw new Error(`transaction ${hash} not found`)
  const abi = tx.to ? (await contractInfo(tx.to))?.abi : undefined
  const view: TxView = { tx, receipt, abi, console: null }
  if (receipt === null) return view
  const [revert, trace, lines] = await Promise.all([
    big(receipt.status) === 0n ? rpc<string>('ots_getTransactionError', [hash]).catch(() => '0x') : undefined,
    rpc<OtsFrame[]>('ots_traceTransaction', [hash]).catch((e: unknown) =>
      e instanceof RpcError ? `trace unavailable (${e.message})` : 'trace unavailable',
    ),
    consoleLines(hash),
  ])
  if (revert !== undefined) view.revert = { data: revert, decoded: decodeRevert(revert, abi) }
  view.trace = trace
  view.console = lines
  return view
}

/** One log: emitter, decoded event (when an ABI knows it), raw topics and data. */
function Log({ log }: { log: RpcLog }) {
  const info = useContract(log.address)
  const decoded = info === undefined ? undefined : decodeLog(log, info?.abi)
  return (
    <li class="log">
      <Fields
        rows={[
          ['Address', <AddressLink address={log.address} />],
          ...(decoded ? [['Event', signatureLine(decoded)] as [string, string]] : []),
          [
            'Topics',
            <ol class="mono" start={0}>
              {log.topics.map((t) => (
                <li key={t}>{t}</li>
              ))}
            </ol>,
          ],
          ['Data', <span class="mono wrap">{log.data}</span>],
        ]}
      />
    </li>
  )
}

/** The call tree of ots_traceTransaction, indented by depth; calls decoded with the callee's ABI when known. */
function CallTree({ frames }: { frames: OtsFrame[] }) {
  return (
    <ul class="tree">
      {frames.map((f, i) => (
        <li key={i} class={`depth-${Math.min(f.depth, 12)}`}>
          <span class="kind">{f.type}</span> <AddressLink address={f.from} /> → <AddressLink address={f.to} />
          {f.value !== null && big(f.value) > 0n && <span> ({rbtc(f.value)})</span>}
          <FrameCall frame={f} />
        </li>
      ))}
    </ul>
  )
}

function FrameCall({ frame }: { frame: OtsFrame }) {
  const info = useContract(frame.type.startsWith('CREATE') ? null : frame.to)
  const call = decodeCall(frame.input, info?.abi)
  if (call) return <div class="mono">{signatureLine(call)}</div>
  return frame.input.length > 2 ? <div class="mono dim">{frame.input.slice(0, 10)}…</div> : null
}

/** The transaction page. */
export function TxPage({ hash }: { hash: string }) {
  const state = useLoad(() => loadTx(hash), [hash])
  return (
    <Show state={state}>
      {({ tx, receipt, abi, revert, trace, console: lines }) => {
        const remasc = isRemasc(tx)
        const call = decodeCall(tx.input, abi)
        const status = receipt === null ? 'Pending' : big(receipt.status) === 1n ? 'Success' : 'Reverted'
        const price = receipt?.effectiveGasPrice ?? tx.gasPrice
        return (
          <section>
            <h1>Transaction</h1>
            <p class="mono">{tx.hash}</p>
            {remasc && <p class="tag">Remasc (system transaction)</p>}
            <Fields
              rows={[
                ['Status', <span class={status === 'Success' ? 'ok' : 'bad'}>{status}</span>],
                ...(revert
                  ? [
                      [
                        'Revert reason',
                        revert.decoded
                          ? revert.decoded.name === 'Error'
                            ? `Error(string): ${revert.decoded.args[0]?.value ?? ''}`
                            : signatureLine(revert.decoded)
                          : revert.data === '0x'
                            ? 'none (no revert data)'
                            : `unknown error ${revert.data.slice(0, 10)}`,
                      ] as [string, string],
                    ]
                  : []),
                ['Block', tx.blockNumber ? <BlockLink number={num(tx.blockNumber)} /> : 'pending'],
                ['From', <AddressLink address={tx.from} />],
                receipt?.contractAddress
                  ? ['Created contract', <AddressLink address={receipt.contractAddress} />]
                  : ['To', <AddressLink address={tx.to} />],
                ['Value', rbtc(tx.value)],
                ['Gas used', receipt ? `${grouped(big(receipt.gasUsed))} of ${grouped(big(tx.gas))}` : '—'],
                ['Gas price', `${grouped(big(price))} wei`],
                ['Fee', receipt ? rbtc(big(receipt.gasUsed) * big(price)) : '—'],
                ['Nonce', num(tx.nonce)],
                ...(call ? [['Function', signatureLine(call)] as [string, string]] : []),
                ['Input', <span class="mono wrap">{tx.input}</span>],
              ]}
            />
            <h2>Logs ({receipt?.logs.length ?? 0})</h2>
            {receipt && receipt.logs.length > 0 ? (
              <ol class="logs">
                {receipt.logs.map((l) => (
                  <Log key={l.logIndex} log={l} />
                ))}
              </ol>
            ) : (
              <p class="dim">No logs.</p>
            )}
            <h2>Call tree</h2>
            {typeof trace === 'string' ? <p class="dim">{trace}</p> : trace && <CallTree frames={trace} />}
            <h2>Console output</h2>
            {lines && lines.length > 0 ? (
              <pre class="console">{lines.join('\n')}</pre>
            ) : (
              <p class="dim">No console.log output.</p>
            )}
          </section>
        )
      }}
    </Show>
  )
}

/**
 * txpool_content, txpool_inspect, txpool_status in the reference shapes
 * (rskj J/co/rsk/rpc/modules/txpool/TxPoolModuleImpl.java; docs/reference-rules.md#rule-txpool-shapes):
 * senders keyed without 0x, nonces as decimal strings, Coin values as Java BigInteger bytes ("0x00" for 0),
 * status counts as JSON numbers.
 */
import type { PoolTx } from '../../txpool/pool.js'
import { quantity, toHex, toKey } from '../../util/bytes.js'
import { method, type MethodSpec } from '../method-table.js'
import type { Services } from '../services.js'

/**
 * Hex of Java `BigInteger.toByteArray()` for a non-negative value: "0x00" for 0, a 00 prefix when the top bit is set.
 */
export function javaBigIntegerHex(value: bigint): string {
  let hex = value.toString(16)
  if (hex.length % 2) hex = '0' + hex
  if (parseInt(hex.slice(0, 2), 16) >= 0x80) hex = '00' + hex
  return '0x' + hex
}

function fullTx(p: PoolTx): Record<string, unknown> {
  const tx = p.tx
  return {
    blockHash: '0x' + '0'.repeat(64),
    blockNumber: null,
    transactionIndex: null,
    from: toHex(p.from),
    gas: quantity(tx.gasLimit),
    gasPrice: javaBigIntegerHex(tx.gasPrice),
    hash: toHex(p.hash),
    input: toHex(tx.data),
    nonce: quantity(tx.nonce),
    to: tx.to ? toHex(tx.to.bytes) : '0x00',
    value: javaBigIntegerHex(tx.value),
  }
}

function summary(p: PoolTx): string {
  const tx = p.tx
  const to = tx.to ? toKey(tx.to.bytes) : ''
  return `${to}: ${tx.value} wei + ${tx.gasLimit} x ${tx.gasPrice} gas`
}

function group<T>(txs: PoolTx[], f: (p: PoolTx) => T): Record<string, Record<string, T[]>> {
  const out: Record<string, Record<string, T[]>> = {}
  for (const p of txs) {
    const sender = (out[toKey(p.from)] ??= {})
    ;(sender[p.tx.nonce.toString()] ??= []).push(f(p))
  }
  return out
}

/** The txpool_ methods. */
export function txpoolMethods(s: Services): MethodSpec[] {
  return [
    method('txpool_content', 'txpool', 'pending and queued transactions by sender and nonce', [], async () => {
      const { pending, queued } = await s.chain.poolContent()
      return { pending: group(pending, fullTx), queued: group(queued, fullTx) }
    }),
    method('txpool_inspect', 'txpool', 'one-line summaries of pool transactions', [], async () => {
      const { pending, queued } = await s.chain.poolContent()
      return { pending: group(pending, summary), queued: group(queued, summary) }
    }),
    method('txpool_status', 'txpool', 'numbers of pending and queued transactions', [], async () => {
      const { pending, queued } = await s.chain.poolContent()
      return { pending: pending.length, queued: queued.length }
    }),
  ]
}

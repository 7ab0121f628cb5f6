/**
 * Display formats: RBTC amounts (wei → ether units with viem's formatEther), quantities, times and short hashes.
 */
import { formatEther } from 'viem'

/** The Remasc contract: each block's last transaction is the Remasc system transaction to it. */
export const REMASC_ADDRESS = '0x0000000000000000000000000000000001000008'

/** A JSON-RPC quantity (0x hex) as a bigint; `null`/absent → 0n. */
export function big(hex: string | null | undefined): bigint {
  return hex ? BigInt(hex) : 0n
}

/** A JSON-RPC quantity (0x hex) as a number (block numbers, indexes, nonces). */
export function num(hex: string | null | undefined): number {
  return hex ? Number(BigInt(hex)) : 0
}

/** A wei amount (0x hex or bigint) as "1.5 RBTC". */
export function rbtc(wei: string | bigint | null | undefined): string {
  return `${formatEther(typeof wei === 'bigint' ? wei : big(wei))} RBTC`
}

/** An integer with thin group separators ("21,000"). */
export function grouped(value: bigint | number): string {
  return value.toLocaleString('en-US')
}

/** A block timestamp (0x hex seconds) as an ISO-like UTC time and an age ("2024-01-02 03:04:05 UTC (5 s ago)"). */
export function time(hexSeconds: string, now = Date.now()): string {
  const ms = num(hexSeconds) * 1000
  const iso = new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC')
  return `${iso} (${age(ms, now)})`
}

/** How long ago `ms` (epoch milliseconds) was: "5 s ago", "3 min ago", "2 h ago", "4 d ago". */
export function age(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000))
  if (s < 60) return `${s} s ago`
  if (s < 3600) return `${Math.floor(s / 60)} min ago`
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`
  return `${Math.floor(s / 86400)} d ago`
}

/** A hash or address shortened to "0x1234…cdef" (full value in links' titles). */
export function short(hex: string): string {
  return hex.length > 14 ? `${hex.slice(0, 8)}…${hex.slice(-6)}` : hex
}

/** Whether `tx` (a transaction object with `to`) is the Remasc system transaction. */
export function isRemasc(tx: { to?: string | null }): boolean {
  return tx.to?.toLowerCase() === REMASC_ADDRESS
}

/**
 * Shared pieces of the explorer's pages: links to blocks, transactions and addresses (an address shows its
 * contract's name when the node knows it), a field list, a loading/error wrapper and the async-data hook.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { useContract } from './contracts.js'
import { REMASC_ADDRESS } from './format.js'

/** Fixed names of the chain's system addresses. */
const SYSTEM_NAMES: Record<string, string> = {
  [REMASC_ADDRESS]: 'Remasc',
  '0x0000000000000000000000000000000001000006': 'Bridge',
}

/**
 * A link to an address's page, with the contract's name from the node's artifacts when it has one.
 * @param short show `0x1234…abcd` (narrow lists; the full address is the link's title)
 */
export function AddressLink({ address, short }: { address: string | null | undefined; short?: boolean }) {
  const info = useContract(address)
  if (!address) return <span>—</span>
  const system = SYSTEM_NAMES[address.toLowerCase()]
  const name = info?.name ?? system
  const shown = short ? `${address.slice(0, 6)}…${address.slice(-4)}` : address
  return (
    <a href={`/address/${address}`} title={address} class="mono">
      {name !== undefined ? (
        <>
          <span class="name">{name}</span> <span class="dim">{shown}</span>
        </>
      ) : (
        shown
      )}
    </a>
  )
}

/** A link to a transaction's page. */
export function TxLink({ hash, text }: { hash: string; text?: string }) {
  return (
    <a href={`/tx/${hash}`} title={hash} class="mono">
      {text ?? hash}
    </a>
  )
}

/** A link to a block's page (by number). */
export function BlockLink({ number }: { number: number | string }) {
  return <a href={`/block/${number}`}>{String(number)}</a>
}

/** A two-column list of labelled values. */
export function Fields({ rows }: { rows: [label: string, value: ComponentChildren][] }) {
  return (
    <dl class="fields">
      {rows.map(([label, value]) => (
        <div class="row" key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  )
}

/** The state of an async load: the value, or an error message, or still loading. */
export type Loaded<T> = { value: T; error?: undefined } | { value?: undefined; error: string } | undefined

/**
 * Runs `load` when `deps` change and keeps its result (a stale run's result is dropped).
 * @returns undefined while loading, then `{ value }` or `{ error }` (the error's message)
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>(undefined)
  useEffect(() => {
    let live = true
    setState(undefined)
    load().then(
      (value) => live && setState({ value }),
      (e: unknown) => live && setState({ error: e instanceof Error ? e.message : String(e) }),
    )
    return () => void (live = false)
  }, deps)
  return state
}

/** Renders `children(value)` once `state` has loaded; "Loading…" before, the error message on failure. */
export function Show<T>({ state, children }: { state: Loaded<T>; children: (value: T) => ComponentChildren }) {
  if (state === undefined) return <p class="dim">Loading…</p>
  if (state.error !== undefined) return <p class="error">Error: {state.error}</p>
  return <>{children(state.value)}</>
}

/**
 * The search box: a block number goes to its block, an address to its page, a 32-byte hash to its transaction
 * (or, when no transaction has that hash, to the block with it).
 */
import { useState } from 'preact/hooks'
import { navigate } from './router.js'
import { rpc } from './rpc.js'

/**
 * Where a search for `query` leads.
 * @returns the page path, or an error message string prefixed with "!" when it matches nothing
 */
export async function searchTarget(query: string): Promise<string> {
  const q = query.trim()
  if (/^\d+$/.test(q)) return `/block/${BigInt(q)}`
  if (/^0x[0-9a-fA-F]{40}$/.test(q)) return `/address/${q.toLowerCase()}`
  if (/^0x[0-9a-fA-F]{64}$/.test(q)) {
    const hash = q.toLowerCase()
    if ((await rpc('eth_getTransactionByHash', [hash])) !== null) return `/tx/${hash}`
    if ((await rpc('eth_getBlockByHash', [hash, false])) !== null) return `/block/${hash}`
    return `!No transaction or block has the hash ${hash}`
  }
  return '!Search for a block number, a transaction or block hash, or an address'
}

/** The search form in the header. */
export function SearchBox() {
  const [value, setValue] = useState('')
  const [message, setMessage] = useState<string>()
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault()
    try {
      const target = await searchTarget(value)
      if (target.startsWith('!')) return setMessage(target.slice(1))
      setMessage(undefined)
      setValue('')
      navigate(target)
    } catch (err) {
      setMessage(err instanceof Error ? err.message : String(err))
    }
  }
  return (
    <form class="search" role="search" onSubmit={(e) => void submit(e)}>
      <input
        type="search"
        aria-label="Search"
        placeholder="Block number, tx hash or address"
        value={value}
        onInput={(e) => setValue((e.target as HTMLInputElement).value)}
      />
      <button type="submit">Search</button>
      {message !== undefined && <p class="error">{message}</p>}
    </form>
  )
}

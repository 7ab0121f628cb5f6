/**
 * What the node knows about a contract (`GET /explorer-api/contract/<address>`: the artifact of the code at that
 * address, from `--artifacts`) and the console.log lines a transaction printed (`GET /explorer-api/console/<hash>`),
 * with a per-address cache for the page load and a hook to name addresses wherever they are shown.
 */
import { useEffect, useState } from 'preact/hooks'
import { getJson } from './rpc.js'

/** A contract the node matched to an artifact: name, source file, ABI. */
export interface ContractInfo {
  name: string
  source?: string
  abi: readonly unknown[]
}

const cache = new Map<string, Promise<ContractInfo | null>>()

/**
 * The artifact of the contract at `address`, asked once per address per page load.
 * @returns null when the node knows none (or the endpoint is missing or fails)
 */
export function contractInfo(address: string): Promise<ContractInfo | null> {
  const key = address.toLowerCase()
  let p = cache.get(key)
  if (p === undefined) {
    p = getJson<ContractInfo | null>(`/explorer-api/contract/${key}`).catch(() => null)
    cache.set(key, p)
  }
  return p
}

/** {@link contractInfo} as a hook: undefined while loading, then the info or null. */
export function useContract(address: string | null | undefined): ContractInfo | null | undefined {
  const [info, setInfo] = useState<ContractInfo | null | undefined>(undefined)
  useEffect(() => {
    if (!address) return setInfo(null)
    let live = true
    setInfo(undefined)
    void contractInfo(address).then((i) => live && setInfo(i))
    return () => void (live = false)
  }, [address])
  return info
}

/**
 * The console.log lines the mined transaction `hash` printed.
 * @returns null when none were captured (or the endpoint is missing)
 */
export function consoleLines(hash: string): Promise<string[] | null> {
  return getJson<string[] | null>(`/explorer-api/console/${hash.toLowerCase()}`).catch(() => null)
}

/**
 * A tiny history-API router for the explorer's deep links (`/`, `/block/<n|hash>`, `/tx/<hash>`,
 * `/address/<address>`): {@link useRoute} re-renders on navigation; {@link navigate} pushes a path; clicks on
 * same-origin `<a href="/…">` links are turned into navigations (no page load).
 */
import { useEffect, useState } from 'preact/hooks'

/** A parsed location: the page and its argument (block number or hash, tx hash, address). */
export type Route =
  | { page: 'home' }
  | { page: 'block'; id: string }
  | { page: 'tx'; hash: string }
  | { page: 'address'; address: string }
  | { page: 'not-found'; path: string }

/** Parses a location path into a {@link Route}. */
export function parseRoute(path: string): Route {
  const parts = path.split('/').filter((p) => p !== '')
  if (parts.length === 0) return { page: 'home' }
  const [kind, arg] = parts
  if (parts.length === 2 && arg !== undefined) {
    const value = decodeURIComponent(arg)
    if (kind === 'block') return { page: 'block', id: value }
    if (kind === 'tx') return { page: 'tx', hash: value }
    if (kind === 'address') return { page: 'address', address: value }
  }
  return { page: 'not-found', path }
}

const listeners = new Set<() => void>()

/** Pushes `path` onto the history and renders its page. */
export function navigate(path: string): void {
  if (path === location.pathname) return
  history.pushState(null, '', path)
  window.scrollTo(0, 0)
  for (const l of listeners) l()
}

/** Starts listening to back/forward and to clicks on internal links; call once at start-up. */
export function startRouter(): void {
  addEventListener('popstate', () => {
    for (const l of listeners) l()
  })
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    const a = (e.target as Element | null)?.closest?.('a')
    const href = a?.getAttribute('href')
    if (!a || !href || !href.startsWith('/') || href.startsWith('//') || a.target) return
    e.preventDefault()
    navigate(href)
  })
}

/** The current route; the component re-renders when it changes. */
export function useRoute(): Route {
  const [path, setPath] = useState(location.pathname)
  useEffect(() => {
    const l = (): void => setPath(location.pathname)
    listeners.add(l)
    return () => void listeners.delete(l)
  }, [])
  return parseRoute(path)
}

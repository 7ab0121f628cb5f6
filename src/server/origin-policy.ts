/**
 * Who may talk to the node from a browser: the `Origin` and `Host` checks both transports ({@link ./uws.ts},
 * {@link ./node-http.ts}) apply to every HTTP request and WebSocket upgrade before anything else.
 *
 * The node's accounts are unlocked and `personal_dumpRawKey` answers private keys, so a web page the developer
 * happens to open must not reach it:
 * - a cross-origin `fetch` or WebSocket carries the page's `Origin`: only loopback pages (`localhost`,
 *   `*.localhost`, `127.0.0.0/8`, `[::1]`, any port, http or https) and browser-extension wallets
 *   (`chrome-extension://`, `moz-extension://`, `safari-web-extension://`) pass by default; a request without
 *   `Origin` (curl, Node, Foundry, any non-browser client) passes;
 * - DNS rebinding (a page whose own name resolves to 127.0.0.1) is same-origin for the browser, so no `Origin`
 *   check sees it; its `Host` header carries the attacker's name, so `Host` must be a loopback name, an IP
 *   address of the bound interface (any local interface when bound to 0.0.0.0 / ::), or the `--host` name.
 *
 * Allowed origins get their own origin echoed in `Access-Control-Allow-Origin` (with `Vary: Origin`), never `*`,
 * unless the user opened the node with `--allow-origin '*'`.
 *
 * The reference node defaults to `rpc.providers.web.cors = "localhost"` (Origin and Referer checked) and
 * accepts only the `Host` names of its bound address (or of `rpc.providers.web.http.hosts` when bound to a
 * non-local address) (docs/reference-rules.md#rule-origin-policy; rskj co/rsk/rpc/OriginValidator.java and
 * co/rsk/rpc/netty/JsonRpcWeb3FilterHandler.java). It refuses with 400; this node answers 403 Forbidden with a text
 * saying which flag opens it, and does not check `Referer` (browsers send `Origin` on every
 * cross-origin POST and WebSocket upgrade).
 */
import { LRUCache } from 'lru-cache'
import { networkInterfaces } from 'node:os'

/** An allow-list as configured: explicit entries, or `'*'` for anything. */
export type AllowList = readonly string[] | '*'

/** Options of {@link OriginPolicy}. */
export interface OriginPolicyOptions {
  /** The interface the server binds (`--host`), e.g. `127.0.0.1`, `0.0.0.0`, `::`, `mybox.local`. */
  bindHost: string
  /**
   * Extra origins allowed besides the loopback and extension ones, e.g. `['https://app.example.com']`
   * (scheme://host[:port], compared case-insensitively, a trailing `/` ignored), or `'*'` for every origin.
   */
  allowOrigins?: AllowList
  /**
   * Extra `Host` names allowed besides loopback names and the bound address, e.g. `['host.docker.internal']`
   * (with or without `:port`; without, any port), or `'*'` for every host.
   */
  allowHosts?: AllowList
}

/** The verdict for one request. */
export type AccessDecision =
  /** Serve it; `allowOrigin` is the `Access-Control-Allow-Origin` value to send (undefined: send none). */
  | { allowed: true; allowOrigin: string | undefined }
  /** Refuse with 403 and `reason` as the text body. */
  | { allowed: false; reason: string }

/** Schemes of browser-extension pages (wallets), allowed by default. */
const EXTENSION_SCHEMES = ['chrome-extension:', 'moz-extension:', 'safari-web-extension:']

/** 127.0.0.0/8 in dotted-quad form (no node:net `isIP`: the CLI loads node:net lazily, after start-up). */
const LOOPBACK_V4 = /^127\.(?:25[0-5]|2[0-4]\d|1?\d?\d)\.(?:25[0-5]|2[0-4]\d|1?\d?\d)\.(?:25[0-5]|2[0-4]\d|1?\d?\d)$/

/**
 * Most distinct Host/Origin values whose verdict is cached (bounds the caches against hostile headers; the least
 * recently seen value goes first).
 */
const CACHE_LIMIT = 256

/**
 * Whether a host name (no port, IPv6 without brackets, lower case) is loopback: `localhost`, `*.localhost`
 * (RFC 6761: browsers resolve them to loopback themselves), 127.0.0.0/8, `::1` or `::ffff:127.x.x.x`.
 * @param name the host name
 * @returns true for a loopback name
 */
export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true
  if (name === '::1' || name === '0:0:0:0:0:0:0:1') return true
  const v4 = name.startsWith('::ffff:') ? name.slice(7) : name
  return LOOPBACK_V4.test(v4)
}

/**
 * Splits a `Host` header value into its name (lower case, IPv6 without brackets) and port.
 * @param host e.g. `localhost:8545`, `[::1]:4444`, `example.com`
 * @returns name and port (`''` when absent)
 */
export function splitHost(host: string): { name: string; port: string } {
  const h = host.trim().toLowerCase()
  if (h.startsWith('[')) {
    const end = h.indexOf(']')
    if (end < 0) return { name: h, port: '' }
    const rest = h.slice(end + 1)
    return { name: h.slice(1, end), port: rest.startsWith(':') ? rest.slice(1) : '' }
  }
  const colon = h.lastIndexOf(':')
  // more than one colon and no brackets: a bare IPv6 address, no port
  if (colon < 0 || h.indexOf(':') !== colon) return { name: h, port: '' }
  return { name: h.slice(0, colon), port: h.slice(colon + 1) }
}

/** `scheme://host[:port]` of an allow-list entry or an `Origin` value, lower case, without a trailing `/`. */
function normalizeOrigin(origin: string): string {
  const o = origin.trim().toLowerCase()
  return o.endsWith('/') ? o.slice(0, -1) : o
}

/** Whether the bind address is a wildcard (every interface). */
function isWildcard(bindHost: string): boolean {
  const h = splitHost(bindHost).name
  return h === '0.0.0.0' || h === '::' || h === '0:0:0:0:0:0:0:0' || h === ''
}

/**
 * Whether binding `host` exposes the node beyond this machine (anything but a loopback name): the CLI warns then.
 * @param host the `--host` value
 * @returns true for a non-loopback interface (including 0.0.0.0 and ::)
 */
export function isPublicBind(host: string): boolean {
  return !isLoopbackName(splitHost(host).name)
}

/**
 * The Origin/Host policy of one server. Verdicts are cached per distinct header value (lru-cache, bounded), so the
 * per-request cost is two cache lookups (~20-40 ns each, measured, against ~20 ns for a bare `Map`).
 */
export class OriginPolicy {
  private readonly anyOrigin: boolean
  private readonly anyHost: boolean
  private readonly origins: ReadonlySet<string>
  /** Allowed host names (any port) and `name:port` pairs. */
  private readonly hosts: ReadonlySet<string>
  private readonly extraHosts: boolean
  private readonly hostCache = new LRUCache<string, boolean>({ max: CACHE_LIMIT })
  private readonly originCache = new LRUCache<string, AccessDecision>({ max: CACHE_LIMIT })

  /**
   * @param options bind address and the extra allow-lists
   * @throws TypeError for an allow-list entry that is empty
   */
  constructor(options: OriginPolicyOptions) {
    const { allowOrigins = [], allowHosts = [] } = options
    this.anyOrigin = allowOrigins === '*' || allowOrigins.includes('*')
    this.anyHost = allowHosts === '*' || allowHosts.includes('*')
    this.origins = new Set(allowOrigins === '*' ? [] : allowOrigins.filter((o) => o !== '*').map(normalizeOrigin))
    const hosts = new Set<string>()
    this.extraHosts = allowHosts !== '*' && allowHosts.length > 0
    for (const entry of allowHosts === '*' ? [] : allowHosts) {
      if (entry === '*') continue
      if (entry.trim() === '') throw new TypeError('an allowed host must not be empty')
      const { name, port } = splitHost(entry)
      hosts.add(port === '' ? name : `${name}:${port}`)
    }
    const bind = splitHost(options.bindHost).name
    if (isWildcard(options.bindHost)) {
      for (const list of Object.values(networkInterfaces()))
        for (const a of list ?? []) hosts.add(a.address.toLowerCase())
    } else {
      hosts.add(bind)
    }
    this.hosts = hosts
  }

  /** True when `--allow-origin` or `--allow-host` widened the defaults (the CLI banner says so). */
  get opened(): { origins: boolean; hosts: boolean } {
    return { origins: this.anyOrigin || this.origins.size > 0, hosts: this.anyHost || this.extraHosts }
  }

  /**
   * Decides one request.
   * @param host the `Host` header (`''` when absent: HTTP/1.0 clients may omit it; allowed)
   * @param origin the `Origin` header (`''` when absent: a non-browser client; allowed)
   * @returns whether to serve it and the CORS origin to grant
   */
  check(host: string, origin: string): AccessDecision {
    if (host !== '' && !this.anyHost && !this.hostAllowed(host)) {
      return {
        allowed: false,
        reason:
          `Forbidden: Host "${printable(host)}" is not allowed (DNS rebinding protection). ` +
          `Start the node with --allow-host ${printable(splitHost(host).name)} to accept it.\n`,
      }
    }
    if (origin === '') return ALLOWED_NO_CORS
    // the node's own pages (the explorer) opened at an allowed Host: the page's origin is the node itself
    if (host !== '' && isSameOrigin(origin, host)) return { allowed: true, allowOrigin: origin }
    let d = this.originCache.get(origin)
    if (d === undefined) {
      d = this.decideOrigin(origin)
      this.originCache.set(origin, d)
    }
    return d
  }

  private hostAllowed(host: string): boolean {
    let ok = this.hostCache.get(host)
    if (ok === undefined) {
      const { name, port } = splitHost(host)
      ok = isLoopbackName(name) || this.hosts.has(name) || this.hosts.has(`${name}:${port}`)
      this.hostCache.set(host, ok)
    }
    return ok
  }

  private decideOrigin(origin: string): AccessDecision {
    if (this.anyOrigin) return { allowed: true, allowOrigin: '*' }
    const o = normalizeOrigin(origin)
    if (this.origins.has(o) || isDefaultOrigin(o)) return { allowed: true, allowOrigin: origin }
    return {
      allowed: false,
      reason:
        `Forbidden: Origin "${printable(origin)}" is not allowed. ` +
        `Start the node with --allow-origin ${printable(o)} to accept it.\n`,
    }
  }
}

const ALLOWED_NO_CORS: AccessDecision = { allowed: true, allowOrigin: undefined }

/** Loopback web pages and browser-extension pages. `null` (sandboxed frames, file:// pages) is not one. */
function isDefaultOrigin(origin: string): boolean {
  for (const scheme of EXTENSION_SCHEMES) if (origin.startsWith(scheme + '//')) return true
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  const name = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  return isLoopbackName(name)
}

/**
 * Whether `origin` is `http://<host>` for this request's `Host` (case-insensitive): a page the node itself served at
 * that address. It names no other server, so it is as safe as the Host check that came first.
 */
function isSameOrigin(origin: string, host: string): boolean {
  return (
    origin.length === host.length + 7 &&
    origin.slice(0, 7).toLowerCase() === 'http://' &&
    origin.slice(7).toLowerCase() === host.toLowerCase()
  )
}

/** A header value safe to quote in a text body: printable ASCII, at most 200 characters. */
function printable(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, '?').slice(0, 200)
}

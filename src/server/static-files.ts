/**
 * The explorer's files as GET answers (transport-agnostic: both transports call them through
 * {@link ./types.ts} `GetHandler`): `index.html` for the page routes (deep links load the one page, which routes in
 * the browser), the content-hashed files under `/assets/`, and 404 for anything else. The build writes them
 * (interface 1 of the explorer: `dist/explorer/index.html`, `dist/explorer/assets/<name>-<hash>.<ext>`).
 *
 * Nothing is read at start-up: a file is read on its first request and kept (with its gzip form, compressed once on
 * the first request that accepts gzip), so a node whose explorer nobody opens holds none of it. When the directory
 * has no `index.html` (a build without the explorer), the pages answer a short text saying how to build it.
 *
 * Headers: the page gets `Cache-Control: no-cache` (revalidated, so a rebuilt explorer shows at once) and a
 * Content-Security-Policy allowing only this origin (scripts, styles, fetches, the WebSocket of the Host it was
 * loaded from); assets are immutable for a year (their names change with their content); every answer carries
 * `X-Content-Type-Options: nosniff`.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { GetRequest, GetResponse } from './types.js'

/** Options of {@link StaticFiles}. */
export interface StaticFilesOptions {
  /**
   * The built explorer: the directory holding `index.html` and `assets/` (a file: URL ending in `/`, or a path).
   * Read lazily; it may be missing.
   */
  dir: string | URL
}

/** `X-Content-Type-Options` on every answer: browsers take the declared type, never a sniffed one. */
export const NOSNIFF = { 'x-content-type-options': 'nosniff' } as const

/** A file as served: its type, bytes, and gzip form (null when gzip does not make it smaller). */
interface StoredFile {
  type: string
  raw: Buffer
  gzip?: Buffer | null
}

/** Content types by file extension; others are `application/octet-stream`. */
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
}

/** Types worth compressing (text); images and fonts are compressed already. */
const COMPRESSIBLE = /^(text\/|image\/svg\+xml|application\/json)/

/** An asset name: one path segment of safe characters, not starting with a dot (no `..`, no hidden files). */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/

/** A `Host` value safe to write into the CSP (a name or address and a port; nothing that ends a directive). */
const CSP_HOST = /^[A-Za-z0-9.:[\]-]{1,300}$/

/** Cache-Control of the page: revalidate every time. */
const PAGE_CACHE = 'no-cache'
/** Cache-Control of an asset: its name changes with its content. */
const ASSET_CACHE = 'public, max-age=31536000, immutable'

/**
 * The explorer page's Content-Security-Policy (interface 2 of the explorer): scripts, styles, images and fetches
 * from this origin only (no inline script), the WebSocket of the `Host` the page was loaded from, no `<base>`, no
 * framing.
 * @param host the request's `Host` header; left out of `connect-src` when empty or not a plain host[:port]
 * @returns the header value
 */
export function explorerCsp(host: string): string {
  const ws = CSP_HOST.test(host) ? ` ws://${host}` : ''
  return (
    `default-src 'self'; connect-src 'self'${ws}; img-src 'self' data:; ` + `base-uri 'none'; frame-ancestors 'none'`
  )
}

/**
 * Whether an `Accept-Encoding` value accepts gzip (`gzip` or `*` listed without `q=0`; RFC 9110 section 12.5.3).
 * @param header the header value (`''` when absent: identity only)
 */
export function acceptsGzip(header: string): boolean {
  let star = false
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase())
    const q = params.find((p) => p.startsWith('q='))
    const weight = q === undefined ? 1 : Number(q.slice(2))
    if (name === 'gzip' || name === 'x-gzip') return weight > 0
    if (name === '*') star = weight > 0
  }
  return star
}

/**
 * A plain-text answer.
 * @param status HTTP status
 * @param text the body
 */
export function textResponse(status: number, text: string): GetResponse {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...NOSNIFF }, body: text }
}

/** 404 for a path that is neither a page nor an asset nor an endpoint. */
export const NOT_FOUND = (): GetResponse => textResponse(404, 'Not Found\n')

/** The explorer's files of one server; see the module comment. */
export class StaticFiles {
  private index: StoredFile | undefined
  private readonly assets = new Map<string, StoredFile>()
  private zlib: typeof import('node:zlib') | undefined

  /**
   * @param options where the built explorer is
   */
  constructor(private readonly options: StaticFilesOptions) {}

  /**
   * Answers a GET/HEAD of a path that is not an endpoint: `/` and the page routes (`/block/…`, `/tx/…`,
   * `/address/…`) with index.html, `/assets/<file>` with that file, anything else 404.
   * @param request the request (path without the query string)
   * @throws a file-system error other than a missing file (the transport answers 500)
   */
  serve(request: GetRequest): GetResponse {
    const p = request.path
    if (isPagePath(p)) return this.page(request)
    if (p.startsWith('/assets/')) return this.asset(p.slice(8), request)
    return NOT_FOUND()
  }

  /** index.html, or the text saying how to build it. */
  private page(request: GetRequest): GetResponse {
    this.index ??= this.read('index.html')
    if (this.index === undefined) return textResponse(200, missingText(this.where('')))
    return this.answer(this.index, request, {
      'cache-control': PAGE_CACHE,
      'content-security-policy': explorerCsp(request.host),
    })
  }

  /** One file of assets/ (kept once read), or 404. */
  private asset(name: string, request: GetRequest): GetResponse {
    if (!ASSET_NAME.test(name)) return NOT_FOUND()
    let file = this.assets.get(name)
    if (file === undefined) {
      file = this.read(`assets/${name}`)
      if (file === undefined) return NOT_FOUND()
      this.assets.set(name, file)
    }
    return this.answer(file, request, { 'cache-control': ASSET_CACHE })
  }

  /** The answer for a stored file: gzip when accepted and smaller. */
  private answer(file: StoredFile, request: GetRequest, extra: Record<string, string>): GetResponse {
    const headers: Record<string, string> = { 'content-type': file.type, ...extra, ...NOSNIFF }
    if (!COMPRESSIBLE.test(file.type)) return { status: 200, headers, body: file.raw }
    headers.vary = 'Accept-Encoding'
    if (!acceptsGzip(request.acceptEncoding)) return { status: 200, headers, body: file.raw }
    if (file.gzip === undefined) {
      this.zlib ??= createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib')
      const gz = this.zlib.gzipSync(file.raw, { level: 9 })
      file.gzip = gz.length < file.raw.length ? gz : null
    }
    if (file.gzip === null) return { status: 200, headers, body: file.raw }
    headers['content-encoding'] = 'gzip'
    return { status: 200, headers, body: file.gzip }
  }

  /** Reads a file of the explorer directory; undefined when it is missing (or a directory). */
  private read(relative: string): StoredFile | undefined {
    let raw: Buffer
    try {
      raw = readFileSync(this.where(relative))
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return undefined
      throw err
    }
    return { type: TYPES[path.extname(relative).toLowerCase()] ?? 'application/octet-stream', raw }
  }

  /** A file of the explorer directory, as a path or file: URL. */
  private where(relative: string): string | URL {
    const dir = this.options.dir
    return typeof dir === 'string' ? path.join(dir, relative) : new URL(relative, dir)
  }
}

/** Whether a path is one of the explorer's pages (`/`, `/block/…`, `/tx/…`, `/address/…`). */
function isPagePath(p: string): boolean {
  return p === '/' || p.startsWith('/block/') || p.startsWith('/tx/') || p.startsWith('/address/')
}

/** The text GET / answers when the explorer was not built. */
function missingText(dir: string | URL): string {
  const where = typeof dir === 'string' ? dir : decodeURIComponent(dir.pathname)
  return (
    'node-cli: the explorer is not built here (no index.html in ' +
    `${where}).\n` +
    'Run `npm run build` in the node-cli checkout (it writes dist/explorer/) and reload this page.\n' +
    'JSON-RPC is served on this port as usual (POST, or a WebSocket).\n'
  )
}

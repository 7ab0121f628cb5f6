/**
 * The dependency patches (patches/, applied by patch-package from `npm run prepare`; docs/dependency-patches.md)
 * are in effect for the code the tests load: every hunk is in its node_modules file, every installed copy of a
 * patched package at a patched version has its patch (a new nested copy would run unpatched), the modules the
 * tests import resolve to patched copies, and the patched behaviour shows where it can be observed from outside.
 * test/bundle-patches.test.ts checks that the patched code computes what the unpatched code computes.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { types } from 'node:util'
import { describe, expect, it } from 'vitest'
// @ts-expect-error -- a plain .mjs script without declarations (scripts/ is checked by tsconfig.scripts.json)
import { patchesNotInEffect, readPatches } from '../scripts/dependency-patches.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

interface PatchedFile {
  patch: string
  file: string
  packageRoot: string
  packageName: string
}
const patches = readPatches(path.join(ROOT, 'patches')) as PatchedFile[]
const versionOf = (root: string) =>
  (JSON.parse(readFileSync(path.join(ROOT, root, 'package.json'), 'utf8')) as { version: string }).version

/** Every installed copy (package root, relative to ROOT) of the package `name`, at any depth of node_modules. */
function copiesOf(name: string, dir = 'node_modules'): string[] {
  const out: string[] = []
  if (existsSync(path.join(ROOT, dir, name, 'package.json'))) out.push(path.join(dir, name))
  for (const entry of readdirSync(path.join(ROOT, dir))) {
    if (entry.startsWith('.')) continue
    const owners = entry.startsWith('@')
      ? readdirSync(path.join(ROOT, dir, entry)).map((e) => path.join(entry, e))
      : [entry]
    for (const owner of owners) {
      const nested = path.join(dir, owner, 'node_modules')
      if (existsSync(path.join(ROOT, nested))) out.push(...copiesOf(name, nested))
    }
  }
  return out
}

describe('dependency patches', () => {
  it('are listed: one diff per change, each file under node_modules', () => {
    expect(new Set(patches.map((p) => p.patch)).size).toBeGreaterThanOrEqual(15)
    for (const p of patches) expect(p.file).toMatch(/^node_modules\//)
  })

  it('are in effect in node_modules (every hunk of every patch is in its file)', () => {
    expect(patchesNotInEffect(patches, ROOT)).toEqual([])
  })

  it('cover every installed copy of a patched package at a patched version', () => {
    const patchedRoots = new Set(patches.map((p) => p.packageRoot))
    for (const name of new Set(patches.map((p) => p.packageName))) {
      const patchedVersions = new Set([...patchedRoots].filter((r) => r.endsWith('/' + name)).map(versionOf))
      const copies = copiesOf(name).filter((root) => patchedVersions.has(versionOf(root)))
      expect(copies.length).toBeGreaterThan(0)
      expect(copies.filter((root) => !patchedRoots.has(root))).toEqual([])
    }
  })

  it('patch the copies the code resolves (the project, and @ethereumjs for its nested lru-cache)', () => {
    const patchedRoots = new Set(patches.map((p) => path.join(ROOT, p.packageRoot)))
    const rootOf = (file: string) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1]
    const fromProject = createRequire(path.join(ROOT, 'src/index.ts'))
    for (const name of [
      '@ethereumjs/util',
      '@ethereumjs/evm',
      '@ethereumjs/vm',
      'debug',
      'lru-cache',
      'classic-level',
    ]) {
      expect(patchedRoots.has(rootOf(fromProject.resolve(name))!), name).toBe(true)
    }
    for (const owner of ['@ethereumjs/mpt', '@ethereumjs/statemanager', '@ethereumjs/blockchain']) {
      const fromOwner = createRequire(path.join(ROOT, 'node_modules', owner, 'package.json'))
      expect(patchedRoots.has(rootOf(fromOwner.resolve('lru-cache'))!), owner).toBe(true)
    }
    const fromUtil = createRequire(path.join(ROOT, 'node_modules/@ethereumjs/util/package.json'))
    expect(patchedRoots.has(rootOf(fromUtil.resolve('@noble/curves/secp256k1.js'))!)).toBe(true)
  })

  it('show their behaviour in the modules the tests load', async () => {
    // @noble/curves: secp256k1 is built on first use, behind a Proxy, and still signs and verifies
    const { secp256k1 } = await import('@noble/curves/secp256k1.js')
    expect(types.isProxy(secp256k1)).toBe(true)
    const key = Uint8Array.from({ length: 32 }, (_, i) => i + 1)
    const hash = new Uint8Array(32).fill(9)
    const sig = secp256k1.sign(hash, key, { prehash: false })
    expect(secp256k1.verify(sig, hash, secp256k1.getPublicKey(key), { prehash: false })).toBe(true)
    // @ethereumjs/util: the curve order as a literal, equal to the curve's
    const util = await import('@ethereumjs/util')
    expect(util.SECP256K1_ORDER).toBe(secp256k1.Point.CURVE().n)
    expect(util.setLengthLeft(Uint8Array.of(1, 2), 4)).toEqual(Uint8Array.of(0, 0, 1, 2))
    expect(util.setLengthRight(Uint8Array.of(1, 2), 4)).toEqual(Uint8Array.of(1, 2, 0, 0))
    expect(util.bytesToBigInt(Uint8Array.of(0xff, 0xfe))).toBe(0xfffen)
    // debug: useColors is an accessor, asked on first read
    const createDebug = (await import('debug')).default
    const instance = createDebug('node-cli:patch-test')
    expect(typeof Object.getOwnPropertyDescriptor(instance, 'useColors')?.get).toBe('function')
    expect(typeof (instance as unknown as { useColors: unknown }).useColors).toBe('boolean')
    // classic-level: the binding loads from the package's directory
    const binding = createRequire(path.join(ROOT, 'src/index.ts'))('classic-level/binding.js') as object
    expect(Object.keys(binding).length).toBeGreaterThan(0)
  })
})

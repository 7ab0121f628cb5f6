/**
 * The library as it would run on the UNPATCHED dependencies: a copy of every package patches/ changes (its
 * root and nested copies), with its patches reverse-applied, and src/index.ts bundled by esbuild against those
 * copies (every other package as installed). test/bundle-patches.test.ts compares the patched code (CLI bundle,
 * library bundle) against it. Files the library requires at run time through createRequire (not bundled) come
 * from node_modules as installed (patched), as in the library bundle.
 */
import { cpSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { build, type Plugin } from 'esbuild'
import { EXTERNAL } from '../../scripts/bundle-externals.mjs'
// @ts-expect-error -- a plain .mjs script without declarations (scripts/ is checked by tsconfig.scripts.json)
import { patchesNotInEffect, readPatches, unpatch } from '../../scripts/dependency-patches.mjs'

const ROOT = path.resolve(import.meta.dirname, '../..')

interface PatchedFile {
  patch: string
  file: string
  packageRoot: string
}

/** An unpatched library build: `createNode` of it, and `dispose` to remove its files. */
export interface UnpatchedLibrary {
  createNode: typeof import('../../src/index.js').createNode
  dispose: () => void
}

/**
 * Builds the unpatched library under node_modules/.cache (so that the packages it leaves external resolve as
 * installed) and imports it.
 * @returns its `createNode` and a `dispose` removing the build
 * @throws when a patch does not reverse-apply (node_modules not patched) or the build fails
 */
export async function buildUnpatchedLibrary(): Promise<UnpatchedLibrary> {
  mkdirSync(path.join(ROOT, 'node_modules/.cache'), { recursive: true })
  const dir = mkdtempSync(path.join(ROOT, 'node_modules/.cache/node-cli-unpatched-'))
  const dispose = () => rmSync(dir, { recursive: true, force: true })
  try {
    const patches = readPatches(path.join(ROOT, 'patches')) as PatchedFile[]
    const roots = [...new Set(patches.map((p) => p.packageRoot))]
    for (const root of roots) cpSync(path.join(ROOT, root), path.join(dir, root), { recursive: true })
    // later patches of a package build on earlier ones: undo them last first
    for (const entry of [...patches].reverse()) {
      const file = path.join(dir, entry.file)
      writeFileSync(file, (unpatch as (e: PatchedFile, t: string) => string)(entry, readFileSync(file, 'utf8')))
    }
    // every hunk of every patch must now be absent from the copies (the comparison would be void otherwise)
    const stillPatched = patches.length - (patchesNotInEffect(patches, dir) as string[]).length
    if (stillPatched !== 0) throw new Error(`unpatched library: ${stillPatched} patched file(s) still patched`)
    const redirect: Plugin = {
      name: 'unpatched-copies',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, async (args) => {
          if (args.pluginData === redirect) return undefined
          const { kind, resolveDir, importer } = args
          const r = await b.resolve(args.path, { kind, resolveDir, importer, pluginData: redirect })
          if (r.errors.length > 0 || r.external) return undefined
          const rel = path.relative(ROOT, r.path)
          return roots.some((p) => rel.startsWith(p + '/')) ? { path: path.join(dir, rel) } : undefined
        })
      },
    }
    const out = path.join(dir, 'index.mjs')
    await build({
      entryPoints: [path.join(ROOT, 'src/index.ts')],
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'error',
      plugins: [redirect],
      // createRequire(import.meta.url) and `../package.json` resolve as from dist/index.js, like the library bundle
      define: { 'import.meta.url': JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/index.js')).href) },
      external: EXTERNAL,
      banner: {
        js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
      },
    })
    const mod = (await import(pathToFileURL(out).href)) as { createNode: UnpatchedLibrary['createNode'] }
    return { createNode: mod.createNode, dispose }
  } catch (err) {
    dispose()
    throw err
  }
}

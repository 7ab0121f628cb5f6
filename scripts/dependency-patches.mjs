// The dependency patches under patches/ (applied to node_modules by patch-package from `npm run prepare`; one
// unified diff per change, docs/dependency-patches.md) and checks that they are in effect. Used by
// scripts/bundle.mjs (the build fails on an unpatched node_modules, and on a bundled copy of a patched package
// that has no patch) and by test/dependency-patches.test.ts.
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'

/**
 * @typedef {object} PatchedFile
 * @property {string} patch the patch file's name (under patches/)
 * @property {string} file the patched file, relative to the project root (node_modules/…)
 * @property {string} packageRoot the directory of the package the file belongs to (node_modules/…/<name>)
 * @property {string} packageName the package's name (e.g. `@ethereumjs/util`)
 * @property {string[]} postImages each hunk's text after the patch (its context and added lines)
 * @property {string[]} preImages each hunk's text before the patch (its context and removed lines)
 */

/**
 * Reads every patch under `dir`: the files each one changes and their hunks' post-images.
 * @param {string} [dir] the patches directory (default `patches`, relative to the working directory)
 * @returns {PatchedFile[]} one entry per patched file of each patch, in file-name order
 * @throws {Error} when a patch holds no file diff (an empty or unreadable patch)
 */
export function readPatches(dir = 'patches') {
  const out = []
  for (const patch of readdirSync(dir)
    .filter((f) => f.endsWith('.patch'))
    .sort()) {
    const lines = readFileSync(path.join(dir, patch), 'utf8').split('\n')
    let current
    let hunk
    let before
    const closeHunk = () => {
      if (hunk && current) {
        current.postImages.push(hunk.join('\n'))
        current.preImages.push(before.join('\n'))
      }
      hunk = undefined
    }
    for (const line of lines) {
      if (line.startsWith('diff --git ')) {
        closeHunk()
        const file = /^diff --git a\/(\S+) b\//.exec(line)?.[1]
        if (!file) throw new Error(`dependency patches: cannot read the file name of ${patch}: ${line}`)
        const m = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(file)
        if (!m) throw new Error(`dependency patches: ${patch} changes ${file}, which is outside node_modules`)
        current = { patch, file, packageRoot: m[1], packageName: m[2], postImages: [], preImages: [] }
        out.push(current)
      } else if (line.startsWith('@@')) {
        closeHunk()
        hunk = []
        before = []
      } else if (hunk && line.startsWith(' ')) {
        hunk.push(line.slice(1))
        before.push(line.slice(1))
      } else if (hunk && line.startsWith('+')) {
        hunk.push(line.slice(1))
      } else if (hunk && line.startsWith('-')) {
        before.push(line.slice(1))
      } else if (hunk && line === '') {
        // an empty context line some tools write without its leading space
        hunk.push('')
        before.push('')
      }
    }
    closeHunk()
    if (!out.some((e) => e.patch === patch)) throw new Error(`dependency patches: ${patch} holds no file diff`)
  }
  return out
}

/**
 * The patched files (see {@link readPatches}) whose text does not hold every hunk's post-image: patches not in
 * effect (node_modules installed without `npm run prepare`, or a dependency reinstalled over its patch).
 * @param {PatchedFile[]} [patches] default: {@link readPatches}()
 * @param {string} [root] the project directory the `file` paths are relative to (default: the working directory)
 * @returns {string[]} one message per file not patched; empty when all are in effect
 */
export function patchesNotInEffect(patches = readPatches(), root = '.') {
  const missing = []
  for (const entry of patches) {
    let text
    try {
      text = readFileSync(path.join(root, entry.file), 'utf8')
    } catch {
      missing.push(`${entry.patch}: ${entry.file} is missing`)
      continue
    }
    const absent = entry.postImages.filter((image) => !text.includes(image.replace(/\n+$/, '')))
    if (absent.length > 0) missing.push(`${entry.patch}: ${absent.length} hunk(s) not in ${entry.file}`)
  }
  return missing
}

/**
 * The text of a patched file with its patch undone: each hunk's post-image replaced by its pre-image.
 * @param {PatchedFile} entry
 * @param {string} text the file's patched text
 * @returns {string} the file's text before the patch
 * @throws {Error} when a hunk's post-image is not found exactly once (the file is not patched as the patch says)
 */
export function unpatch(entry, text) {
  entry.postImages.forEach((image, i) => {
    const post = image.replace(/\n+$/, '')
    const at = text.indexOf(post)
    if (at === -1 || text.indexOf(post, at + 1) !== -1) {
      throw new Error(`dependency patches: hunk ${i + 1} of ${entry.patch} is not in ${entry.file} exactly once`)
    }
    const pre = entry.preImages[i].replace(/\n+$/, '')
    text = text.slice(0, at) + pre + text.slice(at + post.length)
  })
  return text
}

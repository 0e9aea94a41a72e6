// The renderer's fence (spec 01), kept apart from the engine's (module-fences.mjs): its own layer
// table, the order in which features may import one another, and a rule that fails an import cycle
// between files or between features. Relative imports only: a bare specifier is a package.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

/**
 * What each layer of src/renderer/src may import besides itself and src/shared. `entry` is the
 * files at the top (main.tsx, zod-config.ts). app → features → ui → transport / i18n.
 */
export const RENDERER_LAYERS = {
  entry: ['entry', 'app', 'features', 'ui', 'transport', 'i18n'],
  app: ['features', 'ui', 'transport', 'i18n'],
  features: ['ui', 'transport', 'i18n'],
  ui: ['transport', 'i18n'],
  transport: [],
  i18n: [],
}

/** Files a lower layer may still import from a higher one, each with its reason: none today. */
export const RENDERER_LAYER_EXCEPTIONS = {}

/**
 * Which features each feature may import (through its index.ts), lowest first. Chat and Review are
 * peers: both read the session store below them and neither imports the other.
 */
export const RENDERER_FEATURES = {
  session: [],
  settings: [],
  drafts: [],
  projects: [],
  search: [],
  explorer: ['drafts'],
  documents: ['drafts'],
  review: ['session', 'documents'],
  chat: ['session', 'settings'],
}

/** The declared order must itself be acyclic, or "only downward" means nothing. */
function assertAcyclic(table) {
  const state = new Map()
  const visit = (name, path) => {
    if (state.get(name) === 'done') return
    if (state.get(name) === 'open') throw new Error(`RENDERER_FEATURES has a cycle: ${[...path, name].join(' → ')}`)
    state.set(name, 'open')
    for (const next of table[name] ?? []) visit(next, [...path, name])
    state.set(name, 'done')
  }
  for (const name of Object.keys(table)) visit(name, [])
}
assertAcyclic(RENDERER_FEATURES)

const SOURCE = /\.(ts|tsx)$/
const RESOLVE_SUFFIXES = ['', '.ts', '.tsx', `${sep}index.ts`, `${sep}index.tsx`]

function isFile(path) {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true
}

/** A relative specifier to the source file it names, or null (a stylesheet, a missing file). */
function resolveImport(fromFile, specifier) {
  const base = resolve(dirname(fromFile), specifier)
  for (const suffix of RESOLVE_SUFFIXES) {
    const candidate = base + suffix
    if (SOURCE.test(candidate) && isFile(candidate)) return candidate
  }
  return null
}

/** Where a file sits: its layer and, inside features/, its feature. Null outside src/renderer/src. */
function placeOf(root, file) {
  const rel = relative(root, file)
  if (rel.startsWith('..') || rel === '') return null
  const parts = rel.split(sep)
  // `../i18n` names a layer's folder; `./main.tsx` a file at the top.
  if (parts.length === 1 && statSync(file, { throwIfNoEntry: false })?.isDirectory() !== true) {
    return { layer: 'entry', feature: null, rel: parts[0], rest: parts[0] }
  }
  const layer = parts[0]
  // `features/chat` (a folder, through its index.ts) names the feature as much as a file in it.
  const feature = layer === 'features' ? parts[1] : null
  return { layer, feature, rel: parts.join('/'), rest: parts.slice(layer === 'features' ? 2 : 1).join('/') }
}

// `import type …` / `export type …` vanish at build time, so they make no cycle; an import whose
// named specifiers are all `type` ones neither.
const STATIC_IMPORT =
  /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"](\.[^'"]+)['"]|^\s*import\s*['"](\.[^'"]+)['"]/gm
const DYNAMIC_IMPORT = /import\(\s*['"](\.[^'"]+)['"]\s*\)/g

function typeOnly(clause) {
  const named = /^\{([\s\S]*)\}$/.exec(clause.trim())
  if (!named) return false
  const names = named[1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return names.length > 0 && names.every((name) => name.startsWith('type '))
}

function importsInText(text) {
  const found = []
  for (const m of text.matchAll(STATIC_IMPORT)) {
    if (m[5]) found.push(m[5])
    else if (!m[2] && !typeOnly(m[3])) found.push(m[4])
  }
  for (const m of text.matchAll(DYNAMIC_IMPORT)) found.push(m[1])
  return found
}

function listSources(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) listSources(path, out)
    else if (SOURCE.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
      out.push(path)
  }
  return out
}

/** The renderer's import graph on disk, re-read per file only when its mtime changes. */
const scanned = new Map()
function diskGraph(root) {
  const graph = new Map()
  for (const file of listSources(root)) {
    const mtime = statSync(file).mtimeMs
    let entry = scanned.get(file)
    if (!entry || entry.mtime !== mtime) {
      const targets = importsInText(readFileSync(file, 'utf8'))
        .map((spec) => resolveImport(file, spec))
        .filter((t) => t !== null)
      entry = { mtime, targets }
      scanned.set(file, entry)
    }
    graph.set(file, entry.targets)
  }
  return graph
}

/** A path from `start` to `goal` in the graph, or null. */
function pathBetween(graph, start, goal) {
  const previous = new Map([[start, null]])
  const queue = [start]
  while (queue.length > 0) {
    const node = queue.shift()
    if (node === goal) {
      const path = []
      for (let at = goal; at !== null; at = previous.get(at)) path.unshift(at)
      return path
    }
    for (const next of graph.get(node) ?? []) {
      if (!previous.has(next)) {
        previous.set(next, node)
        queue.push(next)
      }
    }
  }
  return null
}

function isTypeOnlyNode(node) {
  if (node.importKind === 'type' || node.exportKind === 'type') return true
  const specifiers = node.specifiers ?? []
  return specifiers.length > 0 && specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type')
}

function sourcesOf(visit) {
  return {
    ImportDeclaration: (node) => visit(node, isTypeOnlyNode(node)),
    ExportNamedDeclaration: (node) => node.source && visit(node, isTypeOnlyNode(node)),
    ExportAllDeclaration: (node) => visit(node, node.exportKind === 'type'),
    ImportExpression: (node) => visit(node, false),
  }
}

export const rendererLayers = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const root = resolve(context.cwd, 'src/renderer/src')
    const from = placeOf(root, context.filename)
    if (!from) return {}
    return sourcesOf((node) => {
      const source = node.source?.value
      if (typeof source !== 'string' || !source.startsWith('.')) return
      const to = placeOf(root, resolve(dirname(context.filename), source))
      if (!to) return
      if (to.layer !== from.layer) {
        const allowed = RENDERER_LAYERS[from.layer]
        const resolved = resolveImport(context.filename, source)
        const file = resolved === null ? null : placeOf(root, resolved)
        const exception = file !== null && RENDERER_LAYER_EXCEPTIONS[file.rel]?.includes(from.layer) === true
        if (allowed === undefined) {
          context.report({
            node,
            message: `Renderer folder "${from.layer}" is not in the layer table (eslint-rules/renderer-fences.mjs).`,
          })
        } else if (!allowed.includes(to.layer) && !exception) {
          context.report({
            node,
            message: `The renderer's ${from.layer}/ may not import ${to.layer}/ ("${source}"): app → features → ui → transport/i18n (spec 01).`,
          })
        }
      }
      if (to.layer !== 'features' || to.feature === null || to.feature === from.feature) return
      // Anything outside a feature reaches it only through its index.ts.
      if (to.rest !== '' && to.rest !== 'index' && !/^index\.tsx?$/.test(to.rest) && from.feature === null) {
        context.report({
          node,
          message: `Import the renderer feature "${to.feature}" through its index.ts, not "${source}".`,
        })
      }
      if (from.feature === null) return
      const allowed = RENDERER_FEATURES[from.feature]
      if (allowed === undefined) {
        context.report({
          node,
          message: `Renderer feature "${from.feature}" is not in the feature order (eslint-rules/renderer-fences.mjs).`,
        })
      } else if (!allowed.includes(to.feature)) {
        context.report({
          node,
          message: `Renderer feature "${from.feature}" may not import "${to.feature}" (not below it in the feature order; spec 01).`,
        })
      }
    })
  },
}

export const rendererCycles = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const root = resolve(context.cwd, 'src/renderer/src')
    const file = context.filename
    const from = placeOf(root, file)
    if (!from) return {}
    const own = []
    return {
      ...sourcesOf((node, typeOnlyImport) => {
        const source = node.source?.value
        if (typeOnlyImport || typeof source !== 'string' || !source.startsWith('.')) return
        const target = resolveImport(file, source)
        if (target && placeOf(root, target)) own.push({ node, source, target })
      }),
      'Program:exit'() {
        if (own.length === 0) return
        // The disk as it is, with this file's imports as written now (it may not be saved yet).
        const graph = diskGraph(root)
        graph.set(
          file,
          own.map((i) => i.target),
        )
        const name = (f) => placeOf(root, f)?.rel ?? f
        for (const { node, source, target } of own) {
          const path = pathBetween(graph, target, file)
          if (path) {
            context.report({
              node,
              message: `Import cycle between files: ${[file, ...path].map(name).join(' → ')} ("${source}").`,
            })
          }
        }
        if (from.feature === null) return
        const featureOf = (f) => placeOf(root, f)?.feature ?? null
        const features = new Map()
        for (const [f, targets] of graph) {
          const a = featureOf(f)
          if (a === null) continue
          for (const t of targets) {
            const b = featureOf(t)
            if (b === null || b === a) continue
            if (!features.has(a)) features.set(a, new Set())
            features.get(a).add(b)
          }
        }
        for (const { node, source, target } of own) {
          const to = featureOf(target)
          if (to === null || to === from.feature) continue
          const path = pathBetween(features, to, from.feature)
          if (path) {
            context.report({
              node,
              message: `Import cycle between renderer features: ${[from.feature, ...path].join(' → ')} ("${source}").`,
            })
          }
        }
      },
    }
  },
}

export default { rules: { 'renderer-layers': rendererLayers, 'renderer-cycles': rendererCycles } }

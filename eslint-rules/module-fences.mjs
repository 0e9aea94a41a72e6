// Fences inside a layer (spec 01): engine modules import only modules below them, and modules and
// renderer features reach each other only through their index.ts. A relative import's target is a
// path computation, so this is a small local rule rather than a plugin that needs a TypeScript
// module resolver to do the same arithmetic.
import { statSync } from 'node:fs'
import { dirname, relative, resolve, sep } from 'node:path'

/** What each engine module may import (besides shared code and its own files). */
export const CORE_LAYERS = {
  platform: [],
  actions: [],
  events: [],
  paging: [],
  git: [],
  // DOCX/XLSX/PPTX/PDF views, edits and diffs in a bounded worker (issue 26); pure over bytes.
  documents: ['platform'],
  'project-fs': ['platform'],
  store: ['platform'],
  journal: ['actions', 'store', 'platform', 'project-fs', 'events'],
  changes: ['journal', 'store'],
  projects: ['actions', 'store', 'platform', 'events'],
  files: ['actions', 'store', 'journal', 'project-fs', 'platform', 'paging', 'git'],
  // Sessions, the DAG, branches, checkpoints, change sets, turn parts; what it asks of the files'
  // side (restore intents, a node's code) comes in through a port, never an import.
  conversation: ['actions', 'store', 'journal', 'changes', 'snapshot', 'events'],
  // Restore intents, the planners and their apply; above the conversation, whose DAG they read.
  // documents: a preview shows what changes inside the DOCX/XLSX/PPTX/PDF it writes (issue 26).
  restore: [
    'actions',
    'store',
    'journal',
    'changes',
    'conversation',
    'snapshot',
    'project-fs',
    'platform',
    'events',
    'git',
    'documents',
  ],
  snapshot: ['actions', 'store', 'git', 'platform', 'project-fs', 'journal', 'changes', 'events'],
  review: [
    'actions',
    'store',
    'journal',
    'changes',
    'conversation',
    'restore',
    'git',
    'paging',
    'platform',
    'project-fs',
    'files',
    'snapshot',
    'documents',
  ],
  office: ['actions', 'store', 'journal', 'files', 'platform', 'project-fs', 'events'],
  watch: ['actions', 'git', 'journal', 'platform', 'project-fs', 'events'],
  agent: [
    'actions',
    'store',
    'journal',
    'conversation',
    'files',
    'project-fs',
    'platform',
    'changes',
    'events',
    'snapshot',
    'documents',
  ],
}

/**
 * A cycle in a layer table (module names, first repeated last), or null. The fence only proves
 * each import follows the table; a table where two modules may import each other would let a
 * feature-level cycle through, so the table itself must be a strict order.
 */
export function layerCycle(layers) {
  const state = new Map()
  const path = []
  const visit = (name) => {
    if (state.get(name) === 'done') return null
    if (state.get(name) === 'open') return [...path.slice(path.indexOf(name)), name]
    state.set(name, 'open')
    path.push(name)
    for (const next of layers[name] ?? []) {
      const found = visit(next)
      if (found) return found
    }
    path.pop()
    state.set(name, 'done')
    return null
  }
  for (const name of Object.keys(layers)) {
    const found = visit(name)
    if (found) return found
  }
  return null
}

const coreLayerCycle = layerCycle(CORE_LAYERS)

function moduleOf(base, file) {
  const rel = relative(base, file)
  if (rel.startsWith('..') || rel === '') return undefined
  const parts = rel.split(sep)
  if (parts.length > 1) return { name: parts[0], rest: parts.slice(1).join('/') }
  // `../journal` names a module (a folder, through its index.ts); `./events` a file beside them.
  return statSync(file, { throwIfNoEntry: false })?.isDirectory()
    ? { name: parts[0], rest: '' }
    : { name: null, rest: parts[0] }
}

function check(context, node, source, bases) {
  if (typeof source !== 'string' || !source.startsWith('.')) return
  const file = context.filename
  const target = resolve(dirname(file), source)
  for (const { base, kind } of bases) {
    const from = moduleOf(base, file)
    const to = target === base ? { name: null, rest: 'index' } : moduleOf(base, target)
    if (!from || !to || from.name === to.name) continue
    if (to.name === null) {
      if (kind === 'engine module' && from.name !== null) {
        context.report({
          node,
          message: `Engine module "${from.name}" may not import the composition root's "${source}".`,
        })
      }
      continue
    }
    if (to.rest !== '' && to.rest !== 'index') {
      context.report({
        node,
        message: `Import the ${kind} "${to.name}" through its index.ts, not "${source}".`,
      })
      continue
    }
    if (kind === 'engine module' && from.name !== null) {
      const allowed = CORE_LAYERS[from.name]
      if (allowed === undefined) {
        context.report({
          node,
          message: `Engine module "${from.name}" is not in the layer table (eslint-rules/module-fences.mjs).`,
        })
      } else if (!allowed.includes(to.name)) {
        context.report({
          node,
          message: `Engine module "${from.name}" may not import "${to.name}" (a higher or unrelated layer; spec 01).`,
        })
      }
    }
  }
}

export const moduleFences = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const cwd = context.cwd
    const bases = [
      { base: resolve(cwd, 'src/main/core'), kind: 'engine module' },
      { base: resolve(cwd, 'src/renderer/src/features'), kind: 'renderer feature' },
    ]
    const visit = (node) => check(context, node, node.source?.value, bases)
    return {
      Program: (node) => {
        if (coreLayerCycle !== null && context.filename.includes(`${sep}core${sep}`)) {
          context.report({
            node,
            message: `The engine's layer table has a cycle: ${coreLayerCycle.join(' → ')} (eslint-rules/module-fences.mjs).`,
          })
        }
      },
      ImportDeclaration: visit,
      ExportNamedDeclaration: visit,
      ExportAllDeclaration: visit,
      ImportExpression: (node) => check(context, node, node.source?.value, bases),
    }
  },
}

export default { rules: { 'module-fences': moduleFences } }

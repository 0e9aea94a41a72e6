// No file-level import cycle on the main side (issue 24): a cycle makes a module's initialisation
// order depend on which file happens to be loaded first, and it is the first sign of two files
// that should be one, or of a fact that belongs in a third. The module fence (module-fences.mjs)
// keeps the engine's modules in layers; this rule keeps the files inside and across them acyclic.
//
// eslint-plugin-import's `import/no-cycle` would do this with a TypeScript resolver and a plugin
// neither of which the project has; a relative specifier here is plain path arithmetic
// (`./x` → x.ts, x.tsx or x/index.ts), so a small rule that reads the other files itself is enough.
// Decisions: type-only imports count too (a cycle of types is still two files that know each
// other), dynamic `import()` does not (it is how a lazy load is written, and runs after every
// module finished loading); only files under the configured roots are followed.
import { readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import ts from 'typescript'

const EXTENSIONS = ['.ts', '.tsx']

function isFile(path) {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true
}

/** The file a relative specifier names, or undefined when it names none (or a non-source file). */
export function resolveRelative(fromFile, specifier) {
  const base = resolve(dirname(fromFile), specifier)
  for (const candidate of [
    ...EXTENSIONS.map((ext) => base + ext),
    ...EXTENSIONS.map((ext) => join(base, `index${ext}`)),
  ]) {
    if (isFile(candidate)) return candidate
  }
  return undefined
}

/** Relative specifiers of a file's static imports and re-exports, from its text. */
export function staticSpecifiers(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false)
  const specifiers = []
  for (const statement of source.statements) {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier !== undefined &&
      ts.isStringLiteral(statement.moduleSpecifier)
        ? statement.moduleSpecifier.text
        : undefined
    if (specifier?.startsWith('.')) specifiers.push(specifier)
  }
  return specifiers
}

// Parsed imports of files on disk, by path, kept while the file's mtime and size stay the same
// (one ESLint run lints every file; the editor integration re-lints one file at a time).
const parsed = new Map()

function importsOnDisk(file) {
  const info = statSync(file, { throwIfNoEntry: false })
  if (!info) return []
  const key = `${info.mtimeMs}:${info.size}`
  const known = parsed.get(file)
  if (known?.key === key) return known.targets
  const targets = staticSpecifiers(file, readFileSync(file, 'utf8')).flatMap((s) => resolveRelative(file, s) ?? [])
  parsed.set(file, { key, targets })
  return targets
}

const inside = (roots, file) => roots.some((root) => !relative(root, file).startsWith('..'))

/**
 * The shortest chain of imports from `start` back to `file`, or null: breadth-first over files on
 * disk (the file being linted is read from its linted text, never from disk).
 */
export function cycleThrough(file, start, roots, importsOf = importsOnDisk) {
  const previous = new Map([[start, null]])
  const queue = [start]
  for (let index = 0; index < queue.length; index++) {
    const current = queue[index]
    if (current === file) {
      const chain = []
      for (let at = current; at !== null; at = previous.get(at)) chain.unshift(at)
      return chain
    }
    for (const next of importsOf(current)) {
      if (previous.has(next) || !inside(roots, next) || /\.test\.tsx?$/.test(next)) continue
      previous.set(next, current)
      queue.push(next)
    }
  }
  return null
}

export const noImportCycle = {
  meta: {
    type: 'problem',
    schema: [
      {
        type: 'object',
        properties: { roots: { type: 'array', items: { type: 'string' } } },
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const cwd = context.cwd
    const roots = (context.options[0]?.roots ?? ['src/main']).map((root) => resolve(cwd, root))
    const file = resolve(cwd, context.filename)
    if (!inside(roots, file)) return {}
    const visit = (node) => {
      const specifier = node.source?.value
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return
      const target = resolveRelative(file, specifier)
      if (target === undefined || !inside(roots, target)) return
      const chain = target === file ? [file] : cycleThrough(file, target, roots)
      if (chain === null) return
      const names = [file, ...chain].map((path) => relative(cwd, path).split(sep).join('/'))
      context.report({ node, message: `Import cycle: ${names.join(' → ')}.` })
    }
    return { ImportDeclaration: visit, ExportNamedDeclaration: visit, ExportAllDeclaration: visit }
  },
}

export default { rules: { 'no-import-cycle': noImportCycle } }

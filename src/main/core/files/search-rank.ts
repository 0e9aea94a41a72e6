import fuzzysort from 'fuzzysort'
import type { ProjectIndex } from './search-index'

/** `files`: quick open (files only); `all`: the explorer's search box (folders too). */
export type SearchMode = 'files' | 'all'

/**
 * Ranks the index for a query the way VS Code's quick open does: a match in the file name beats a
 * match only across the path, a tight match beats a scattered one (fuzzysort's scoring: word
 * starts, contiguous runs, shorter targets), space-separated terms must all match, a term with a
 * `/` matches paths only. Equal scores are ordered by path (code units), so the order is total and
 * the same on every run. An empty query lists every entry by path.
 */
export function rankIndex(index: ProjectIndex, query: string, mode: SearchMode): number[] {
  const wanted = (i: number) => mode === 'all' || index.kinds[i] === 'file'
  const byPath = (a: number, b: number) => {
    const pa = index.paths[a] as string
    const pb = index.paths[b] as string
    return pa < pb ? -1 : pa > pb ? 1 : 0
  }
  const terms = query
    .trim()
    .split(/\s+/)
    .filter((term) => term !== '')
  if (terms.length === 0) {
    const all: number[] = []
    for (let i = 0; i < index.paths.length; i++) if (wanted(i)) all.push(i)
    return all.sort(byPath)
  }
  // The subsequence filter is exact for ASCII terms; fuzzysort also folds accents and look-alike
  // characters, so a term with anything else goes straight to the scorer.
  const filters = terms.map((term) => term.toLowerCase()).filter((term) => /^[\x20-\x7e]*$/.test(term))
  const scored: Array<{ i: number; score: number }> = []
  const { paths, kinds, lowerPaths } = index
  const filesOnly = mode === 'files'
  // An ASCII index is filtered by native regular expressions (case-insensitive is exact there).
  const patterns = lowerPaths ? [] : filters.map(subsequencePattern)
  entries: for (let i = 0; i < paths.length; i++) {
    if (filesOnly && kinds[i] !== 'file') continue
    if (lowerPaths) {
      for (const term of filters) if (!isSubsequence(term, lowerPaths[i] as string)) continue entries
    } else {
      for (const pattern of patterns) if (!pattern.test(paths[i] as string)) continue entries
    }
    const score = scoreEntry(index, i, terms)
    if (score > 0) scored.push({ i, score })
  }
  scored.sort((a, b) => b.score - a.score || byPath(a.i, b.i))
  return scored.map((entry) => entry.i)
}

function scoreEntry(index: ProjectIndex, i: number, terms: readonly string[]): number {
  let total = 0
  for (const term of terms) {
    const onPath = fuzzysort.single(term, (index.preparedPaths[i] ??= fuzzysort.prepare(index.paths[i] as string)))
    if (!onPath) return 0
    let termScore = onPath.score
    if (!term.includes('/')) {
      const onName = fuzzysort.single(
        term,
        (index.preparedNames[i] ??= fuzzysort.prepare(nameOf(index.paths[i] as string))),
      )
      // Any name match outranks a match that needs the folders.
      if (onName) termScore = Math.max(termScore, 1 + onName.score)
    }
    total += termScore
  }
  return total / terms.length
}

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

/**
 * `needle` as a subsequence of a string, any case: `^[^a]*a[^b]*b…`, which never backtracks more
 * than one character per step (no `.*`, so no blow-up on long paths).
 */
function subsequencePattern(needle: string): RegExp {
  const steps = [...needle].map((char) => {
    const code = `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
    return `[^${code}]*${code}`
  })
  return new RegExp(`^${steps.join('')}`, 'i')
}

function isSubsequence(needle: string, haystack: string): boolean {
  let n = 0
  for (let h = 0; h < haystack.length && n < needle.length; h++) {
    if (haystack.charCodeAt(h) === needle.charCodeAt(n)) n++
  }
  return n === needle.length
}

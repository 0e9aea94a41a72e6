/**
 * The palette's command-title match (files come from the engine's `files.search`). Fuzzy: the query's characters in order, scored by contiguous runs, matches at
 * word starts and in the file name; best first. Returns at most `limit` paths.
 */
export function matchFiles(paths: readonly string[], query: string, limit = 50): string[] {
  const needle = query.trim().toLowerCase().replace(/\s+/g, '')
  if (needle === '') return paths.slice(0, limit)
  const scored: Array<{ path: string; score: number }> = []
  for (const path of paths) {
    const score = fuzzyScore(path, needle)
    if (score > 0) scored.push({ path, score })
  }
  scored.sort((a, b) => b.score - a.score || a.path.length - b.path.length || a.path.localeCompare(b.path))
  return scored.slice(0, limit).map((s) => s.path)
}

function fuzzyScore(path: string, needle: string): number {
  const haystack = path.toLowerCase()
  const nameStart = haystack.lastIndexOf('/') + 1
  let score = 0
  let from = 0
  let run = 0
  for (const char of needle) {
    const at = haystack.indexOf(char, from)
    if (at < 0) return 0
    run = at === from && from > 0 ? run + 1 : 1
    score += run * 2
    const before = haystack[at - 1]
    if (at === 0 || before === '/' || before === '-' || before === '_' || before === '.') score += 4
    if (at >= nameStart) score += 3
    from = at + 1
  }
  if (haystack.slice(nameStart).includes(needle)) score += 20
  return score
}

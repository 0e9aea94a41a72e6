import type { ResultOf } from '../../../../shared/protocol'
import type { RequestClient, RequestOutcome } from '../../transport'

/** Folders never walked for quick open (dependency trees, not the person's files). */
const SKIPPED = new Set(['node_modules'])
export const FILE_INDEX_LIMIT = 20_000
const PARALLEL = 4

export interface FileIndex {
  readonly paths: readonly string[]
  /** The walk stopped at FILE_INDEX_LIMIT. */
  readonly partial: boolean
}

/**
 * Quick open's file names, gathered through the engine's paged `files.list` (breadth first,
 * bounded). The files issue brings a server-side project search (`files.search`, spec 08) that
 * respects .gitignore and scales to 100 000 files; this walk is the stand-in until then.
 */
export async function buildFileIndex(
  client: RequestClient,
  projectId: string,
  signal: AbortSignal,
): Promise<FileIndex> {
  const paths: string[] = []
  const queue: string[] = ['']
  let partial = false
  const owner = { project_id: projectId }
  const walk = async () => {
    while (queue.length > 0 && !signal.aborted && !partial) {
      const folder = queue.shift() as string
      let cursor: string | null = null
      do {
        const outcome: RequestOutcome<ResultOf<'files.list'>> = await client.request(
          'files.list',
          cursor === null ? { path: folder } : { path: folder, cursor },
          {
            owner,
            signal,
          },
        )
        if (outcome.kind !== 'ok') break
        for (const entry of outcome.result.entries) {
          if (entry.kind === 'dir') {
            if (!SKIPPED.has(entry.name)) queue.push(entry.path)
          } else if (paths.length < FILE_INDEX_LIMIT) paths.push(entry.path)
          else partial = true
        }
        cursor = outcome.result.next_cursor
      } while (cursor !== null && !partial)
    }
  }
  // A few walkers share the queue; a walker that finds it empty while others still list waits
  // for them (each re-checks when its own listing returns).
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let idle = 0; idle < 50 && !signal.aborted; idle++) {
        await walk()
        if (queue.length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
        if (queue.length === 0 && idle > 2) break
      }
    }),
  )
  return { paths: paths.sort(), partial }
}

/**
 * Fuzzy file-name match: the query's characters in order, scored by contiguous runs, matches at
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

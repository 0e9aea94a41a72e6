import { diff } from 'fast-myers-diff'
import type { DiffState, LineStats } from './types'

const utf8 = new TextDecoder('utf-8', { fatal: true })
const MAX_LINES = 200_000

function asText(bytes: Buffer | null): string | null | 'binary' {
  if (bytes === null) return null
  if (bytes.subarray(0, 8192).includes(0)) return 'binary'
  try {
    return utf8.decode(bytes)
  } catch {
    return 'binary'
  }
}

/**
 * Exact added/removed line counts, or an explicit `unknown`/`binary` — never an estimate (spec 03:
 * a 5 MiB file modified is "unknown", not "+100 000"). `null` stands for an absent side.
 */
export function lineStats(
  before: Buffer | null,
  after: Buffer | null,
  budgetBytes: number,
): { stats: LineStats; diff_state: DiffState } {
  if ((before?.length ?? 0) > budgetBytes || (after?.length ?? 0) > budgetBytes) {
    return { stats: { unknown: true, reason: 'over-budget' }, diff_state: 'large' }
  }
  const a = asText(before)
  const b = asText(after)
  if (a === 'binary' || b === 'binary') return { stats: { binary: true }, diff_state: 'binary' }
  const linesA = splitLines(a)
  const linesB = splitLines(b)
  if (linesA.length + linesB.length > MAX_LINES) {
    return { stats: { unknown: true, reason: 'too-many-lines' }, diff_state: 'large' }
  }
  // Intern lines to integers so the diff compares numbers, not strings.
  const ids = new Map<string, number>()
  const intern = (lines: string[]) =>
    Int32Array.from(lines, (line) => ids.get(line) ?? (ids.set(line, ids.size), ids.size - 1))
  let added = 0
  let removed = 0
  for (const [sx, ex, sy, ey] of diff(intern(linesA), intern(linesB))) {
    removed += ex - sx
    added += ey - sy
  }
  return { stats: { added, removed, binary: false }, diff_state: 'available' }
}

function splitLines(text: string | null): string[] {
  if (text === null || text === '') return []
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

import { diffWordsWithSpace } from 'diff'

export interface DiffLine {
  readonly kind: 'context' | 'add' | 'del'
  readonly text: string
  readonly old_line: number | null
  readonly new_line: number | null
}

export interface DiffHunk {
  readonly old_start: number
  readonly new_start: number
  readonly continued: boolean
  readonly lines: readonly DiffLine[]
}

/** A piece of a changed line; `changed` pieces are the words that differ from its counterpart. */
export interface Segment {
  readonly text: string
  readonly changed: boolean
}

export interface ShownLine extends DiffLine {
  /** Word-level pieces when the line was paired with its counterpart; null shows the line whole. */
  readonly segments: readonly Segment[] | null
  /** Index of the change block this line starts, for next/previous change. */
  readonly changeStart: number | null
}

export interface SplitRow {
  readonly left: ShownLine | null
  readonly right: ShownLine | null
  readonly changeStart: number | null
}

export interface ShownHunk {
  readonly header: { old_start: number; new_start: number; continued: boolean }
  readonly unified: readonly ShownLine[]
  readonly split: readonly SplitRow[]
}

/** Word diffs are skipped for very long lines (cost) and for lines that share almost nothing. */
const WORD_DIFF_MAX_CHARS = 1_000
const MIN_SHARED_RATIO = 0.3

function wordSegments(before: string, after: string): { left: Segment[]; right: Segment[] } | null {
  if (before.length > WORD_DIFF_MAX_CHARS || after.length > WORD_DIFF_MAX_CHARS) return null
  const parts = diffWordsWithSpace(before, after)
  const shared = parts.filter((p) => !p.added && !p.removed).reduce((n, p) => n + p.value.length, 0)
  if (shared / Math.max(1, Math.max(before.length, after.length)) < MIN_SHARED_RATIO) return null
  const left: Segment[] = []
  const right: Segment[] = []
  for (const part of parts) {
    if (!part.added) left.push({ text: part.value, changed: Boolean(part.removed) })
    if (!part.removed) right.push({ text: part.value, changed: Boolean(part.added) })
  }
  return { left, right }
}

/**
 * Lays out server hunks for display: unified lines and side-by-side rows (deleted lines paired
 * with the added lines that replaced them), word-level highlights inside paired lines, and a
 * running index of change blocks (a run of added/deleted lines) for next/previous change.
 */
export function layoutHunks(hunks: readonly DiffHunk[]): { hunks: ShownHunk[]; changes: number } {
  let changes = 0
  const shown = hunks.map((hunk) => {
    const unified: ShownLine[] = []
    const split: SplitRow[] = []
    const lines = hunk.lines
    let i = 0
    while (i < lines.length) {
      const line = lines[i] as DiffLine
      if (line.kind === 'context') {
        const shownLine = { ...line, segments: null, changeStart: null }
        unified.push(shownLine)
        split.push({ left: shownLine, right: shownLine, changeStart: null })
        i++
        continue
      }
      const dels: DiffLine[] = []
      const adds: DiffLine[] = []
      while (i < lines.length && (lines[i] as DiffLine).kind === 'del') dels.push(lines[i++] as DiffLine)
      while (i < lines.length && (lines[i] as DiffLine).kind === 'add') adds.push(lines[i++] as DiffLine)
      const block = changes++
      const pairs = Math.max(dels.length, adds.length)
      const left: ShownLine[] = []
      const right: ShownLine[] = []
      for (let k = 0; k < pairs; k++) {
        const del = dels[k]
        const add = adds[k]
        const words = del && add ? wordSegments(del.text, add.text) : null
        if (del) left.push({ ...del, segments: words?.left ?? null, changeStart: null })
        if (add) right.push({ ...add, segments: words?.right ?? null, changeStart: null })
      }
      const first = (list: ShownLine[]) => list.map((l, k) => (k === 0 ? { ...l, changeStart: block } : l))
      const unifiedBlock = first([...left, ...right])
      unified.push(...unifiedBlock)
      const leftShown = unifiedBlock.slice(0, left.length)
      const rightShown = unifiedBlock.slice(left.length)
      for (let k = 0; k < pairs; k++) {
        split.push({ left: leftShown[k] ?? null, right: rightShown[k] ?? null, changeStart: k === 0 ? block : null })
      }
    }
    return {
      header: { old_start: hunk.old_start, new_start: hunk.new_start, continued: hunk.continued },
      unified,
      split,
    }
  })
  return { hunks: shown, changes }
}

export type DiffLineKind = 'meta' | 'hunk' | 'add' | 'del' | 'context'

export interface DiffLine {
  readonly kind: DiffLineKind
  readonly text: string
}

const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/

/**
 * Classifies each line of a unified diff. Inside a hunk the header's line counts decide where it
 * ends, so a removed line that itself starts with "--" is still a removal, not a file header.
 */
export function parseUnifiedDiff(diff: string): DiffLine[] {
  const lines = diff.endsWith('\n') ? diff.slice(0, -1).split('\n') : diff.split('\n')
  const out: DiffLine[] = []
  let oldLeft = 0
  let newLeft = 0
  for (const text of lines) {
    const inHunk = oldLeft > 0 || newLeft > 0
    if (inHunk) {
      if (text.startsWith('+')) {
        newLeft -= 1
        out.push({ kind: 'add', text })
        continue
      }
      if (text.startsWith('-')) {
        oldLeft -= 1
        out.push({ kind: 'del', text })
        continue
      }
      if (text.startsWith(' ') || text === '') {
        oldLeft -= 1
        newLeft -= 1
        out.push({ kind: 'context', text })
        continue
      }
      if (text.startsWith('\\')) {
        out.push({ kind: 'meta', text })
        continue
      }
      oldLeft = 0
      newLeft = 0
    }
    const header = HUNK_HEADER.exec(text)
    if (header) {
      oldLeft = Number(header[1] ?? '1')
      newLeft = Number(header[2] ?? '1')
      out.push({ kind: 'hunk', text })
    } else {
      out.push({ kind: 'meta', text })
    }
  }
  return out
}

import type { DiffHunk, DiffLine } from './diff-model'

/** One file of a unified patch, laid out as the one diff family shows server hunks. */
export interface PatchFile {
  /** The lines before its first hunk as written: `--- a/x`, `+++ b/x`, "Binary file: …". */
  readonly header: readonly string[]
  readonly hunks: readonly DiffHunk[]
  /** Lines after a hunk that belong to none ("… diff cut at …"), shown after the hunks. */
  readonly notes: readonly string[]
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/

interface OpenFile {
  header: string[]
  hunks: DiffHunk[]
  notes: string[]
}

/**
 * Reads the unified patch an approval carries (several files, each with `---`/`+++` headers) into
 * hunks with line numbers. Inside a hunk the header's line counts decide where it ends, so a removed
 * line that itself starts with "--" is still a removal, not a file header.
 *
 * Hand-written rather than jsdiff's `parsePatch`: the engine cuts a long patch mid-hunk and writes
 * notes between files ("Binary file: …", "Too different to show…"), which a strict parser rejects;
 * here a short hunk simply ends and an unknown line is shown as it is. "\ No newline at end of
 * file" is left out, as Review's server hunks leave it out.
 */
export function parsePatch(patch: string): PatchFile[] {
  const lines = patch.endsWith('\n') ? patch.slice(0, -1).split('\n') : patch.split('\n')
  const files: OpenFile[] = []
  let file: OpenFile | null = null
  let hunk: { old_start: number; new_start: number; continued: false; lines: DiffLine[] } | null = null
  let oldLeft = 0
  let newLeft = 0
  let oldLine = 0
  let newLine = 0
  const current = (): OpenFile => {
    if (file === null) {
      file = { header: [], hunks: [], notes: [] }
      files.push(file)
    }
    return file
  }
  for (const text of lines) {
    if (hunk !== null && (oldLeft > 0 || newLeft > 0)) {
      if (text.startsWith('+') && newLeft > 0) {
        newLeft -= 1
        hunk.lines.push({ kind: 'add', text: text.slice(1), old_line: null, new_line: newLine++ })
        continue
      }
      if (text.startsWith('-') && oldLeft > 0) {
        oldLeft -= 1
        hunk.lines.push({ kind: 'del', text: text.slice(1), old_line: oldLine++, new_line: null })
        continue
      }
      if ((text.startsWith(' ') || text === '') && oldLeft > 0 && newLeft > 0) {
        oldLeft -= 1
        newLeft -= 1
        hunk.lines.push({ kind: 'context', text: text.slice(1), old_line: oldLine++, new_line: newLine++ })
        continue
      }
    }
    if (text.startsWith('\\')) continue
    oldLeft = 0
    newLeft = 0
    const header = HUNK_HEADER.exec(text)
    if (header) {
      oldLine = Number(header[1])
      newLine = Number(header[3])
      oldLeft = Number(header[2] ?? '1')
      newLeft = Number(header[4] ?? '1')
      // `-0,0`: nothing on the old side, so its first line number is never shown.
      hunk = { old_start: oldLine, new_start: newLine, continued: false, lines: [] }
      current().hunks.push(hunk)
      continue
    }
    hunk = null
    const open = current()
    // A `---` after a file's hunks (or a second `---`) starts the next file.
    if (
      text.startsWith('--- ') &&
      (open.hunks.length > 0 || open.notes.length > 0 || open.header.some((l) => l.startsWith('--- ')))
    ) {
      file = null
      current().header.push(text)
    } else if (open.hunks.length > 0) open.notes.push(text)
    else open.header.push(text)
  }
  return files
}

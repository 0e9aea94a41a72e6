/**
 * The `*** Begin Patch` grammar used by coding agents: Add / Delete / Update File sections,
 * `*** Move to:` for renames, `@@` chunks of context/-/+ lines, and `*** End of File` anchors.
 * Pure: no file-system access, so every grammar error is found before anything is read.
 */
export interface PatchChunk {
  /** Text after `@@`, used to find the chunk's region (null for a bare `@@` or none). */
  readonly anchor: string | null
  readonly oldLines: readonly string[]
  readonly newLines: readonly string[]
  /** The chunk must match at the end of the file. */
  readonly atEndOfFile: boolean
}

export type PatchOperation =
  | { readonly kind: 'add'; readonly path: string; readonly lines: readonly string[] }
  | { readonly kind: 'delete'; readonly path: string }
  | {
      readonly kind: 'update'
      readonly path: string
      readonly moveTo: string | null
      readonly chunks: readonly PatchChunk[]
    }

export type PatchParse = { kind: 'ok'; operations: PatchOperation[] } | { kind: 'error'; line: number; message: string }

const ADD = '*** Add File: '
const DELETE = '*** Delete File: '
const UPDATE = '*** Update File: '
const MOVE = '*** Move to: '
const EOF_MARK = '*** End of File'

export function parsePatch(text: string): PatchParse {
  const lines = text.replace(/\r\n/g, '\n').split('\n')
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === '') lines.pop()
  const error = (line: number, message: string): PatchParse => ({ kind: 'error', line: line + 1, message })
  if (lines[0]?.trim() !== '*** Begin Patch') return error(0, 'A patch starts with "*** Begin Patch".')
  if (lines[lines.length - 1]?.trim() !== '*** End Patch')
    return error(lines.length - 1, 'A patch ends with "*** End Patch".')
  const operations: PatchOperation[] = []
  let i = 1
  const end = lines.length - 1
  const seen = new Set<string>()
  const claim = (path: string, at: number): PatchParse | null => {
    if (path === '') return error(at, 'A file section needs a path.')
    if (seen.has(path)) return error(at, `"${path}" appears twice in one patch.`)
    seen.add(path)
    return null
  }
  while (i < end) {
    const line = lines[i] ?? ''
    if (line.startsWith(ADD)) {
      const path = line.slice(ADD.length).trim()
      const bad = claim(path, i)
      if (bad) return bad
      const body: string[] = []
      i += 1
      while (i < end && !(lines[i] ?? '').startsWith('*** ')) {
        const added = lines[i] ?? ''
        if (!added.startsWith('+')) return error(i, `Every line of an added file starts with "+".`)
        body.push(added.slice(1))
        i += 1
      }
      operations.push({ kind: 'add', path, lines: body })
    } else if (line.startsWith(DELETE)) {
      const path = line.slice(DELETE.length).trim()
      const bad = claim(path, i)
      if (bad) return bad
      operations.push({ kind: 'delete', path })
      i += 1
    } else if (line.startsWith(UPDATE)) {
      const path = line.slice(UPDATE.length).trim()
      const bad = claim(path, i)
      if (bad) return bad
      i += 1
      let moveTo: string | null = null
      if ((lines[i] ?? '').startsWith(MOVE)) {
        moveTo = (lines[i] ?? '').slice(MOVE.length).trim()
        const badMove = claim(moveTo, i)
        if (badMove) return badMove
        i += 1
      }
      const chunks: PatchChunk[] = []
      let current: { anchor: string | null; oldLines: string[]; newLines: string[]; atEndOfFile: boolean } | null = null
      while (i < end && (!(lines[i] ?? '').startsWith('*** ') || (lines[i] ?? '').startsWith(EOF_MARK))) {
        const body = lines[i] ?? ''
        if (body.startsWith('@@')) {
          if (current && (current.oldLines.length > 0 || current.newLines.length > 0)) chunks.push(current)
          const anchor = body.slice(2).trim()
          current = { anchor: anchor === '' ? null : anchor, oldLines: [], newLines: [], atEndOfFile: false }
        } else if (body.startsWith(EOF_MARK)) {
          if (!current) return error(i, '"*** End of File" must follow a chunk.')
          current.atEndOfFile = true
        } else {
          current ??= { anchor: null, oldLines: [], newLines: [], atEndOfFile: false }
          const marker = body[0]
          const rest = body.slice(1)
          if (marker === ' ' || body === '') {
            current.oldLines.push(rest)
            current.newLines.push(rest)
          } else if (marker === '-') current.oldLines.push(rest)
          else if (marker === '+') current.newLines.push(rest)
          else return error(i, `A chunk line starts with " ", "-" or "+", not "${marker}".`)
        }
        i += 1
      }
      if (current && (current.oldLines.length > 0 || current.newLines.length > 0)) chunks.push(current)
      if (chunks.length === 0 && moveTo === null) return error(i, `The update of "${path}" changes nothing.`)
      operations.push({ kind: 'update', path, moveTo, chunks })
    } else if (line.trim() === '') {
      i += 1
    } else {
      return error(i, `Expected "*** Add File:", "*** Delete File:" or "*** Update File:", not "${line.slice(0, 60)}".`)
    }
  }
  if (operations.length === 0) return error(0, 'The patch contains no file sections.')
  return { kind: 'ok', operations }
}

/**
 * Applies chunks to a file's lines. Each chunk's old lines are found at or after the previous
 * chunk (after its `@@` anchor, if any), first exactly, then ignoring trailing whitespace, then
 * ignoring surrounding whitespace. Returns the index of the first chunk that does not match.
 */
export function applyChunks(
  lines: readonly string[],
  chunks: readonly PatchChunk[],
): { kind: 'ok'; lines: string[] } | { kind: 'error'; chunk: number } {
  const out = [...lines]
  let cursor = 0
  const normalisers = [(s: string) => s, (s: string) => s.trimEnd(), (s: string) => s.trim()]
  for (const [index, chunk] of chunks.entries()) {
    if (chunk.anchor !== null) {
      const anchorAt = findFrom(out, [chunk.anchor], cursor, normalisers, false)
      if (anchorAt < 0) return { kind: 'error', chunk: index }
      cursor = anchorAt + 1
    }
    let at: number
    if (chunk.oldLines.length === 0) at = chunk.atEndOfFile ? out.length : cursor
    else at = findFrom(out, chunk.oldLines, cursor, normalisers, chunk.atEndOfFile)
    if (at < 0) return { kind: 'error', chunk: index }
    out.splice(at, chunk.oldLines.length, ...chunk.newLines)
    cursor = at + chunk.newLines.length
  }
  return { kind: 'ok', lines: out }
}

function findFrom(
  lines: readonly string[],
  needle: readonly string[],
  start: number,
  normalisers: ReadonlyArray<(s: string) => string>,
  atEnd: boolean,
): number {
  for (const normalise of normalisers) {
    const wanted = needle.map(normalise)
    const first = atEnd ? lines.length - needle.length : start
    const last = lines.length - needle.length
    for (let i = Math.max(first, 0); i <= last; i++) {
      if (wanted.every((w, j) => normalise(lines[i + j] ?? '') === w)) return i
    }
  }
  return -1
}

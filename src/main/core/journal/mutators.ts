import { constants, readdirSync } from 'node:fs'
import { access, lstat } from 'node:fs/promises'
import { isAbsolute } from 'node:path'
import { openChain } from '../project-fs'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import type { Digest } from '../store'
import { readLocalFile, readWriteTarget, tooLarge, type DiskState } from './target'
import type { PlannedChange, Workspace } from './transaction'
import type { JournalLimits } from './types'

/** The baseline a mutation is checked against (spec 03 step 2): the revision last read, or `null` for "must not exist". */
export type Baseline = Digest | null

const DEFAULT_FILE_MODE = 0o644

export interface MutatorContext {
  readonly workspace: Workspace
  readonly limits: JournalLimits
}

async function target(context: MutatorContext, path: string): Promise<Outcome<DiskState>> {
  return readWriteTarget(
    { root: context.workspace.root, dataDir: context.workspace.dataDir },
    path,
    context.limits.maxFileBytes,
  )
}

function conflict(path: string, expected: Baseline, actual: DiskState) {
  const actualRevision = actual.kind === 'regular' ? actual.digest : null
  // Three reasons, not one: "already exists" (a name taken) reads differently from an edit lost to
  // someone else's, and a view offers a free name for the first but a reload for the others.
  if (expected === null) {
    return fail('CONFLICT', `"${path}" already exists.`, {
      path,
      expected_revision: expected,
      actual_revision: actualRevision,
      reason: 'already-exists',
    })
  }
  if (actual.kind === 'absent') {
    return fail('CONFLICT', `"${path}" no longer exists.`, {
      path,
      expected_revision: expected,
      actual_revision: actualRevision,
      reason: 'no-longer-exists',
    })
  }
  return fail('CONFLICT', `"${path}" changed since it was read; read it again before changing it.`, {
    path,
    expected_revision: expected,
    actual_revision: actualRevision,
    reason: 'baseline-mismatch',
  })
}

function checkBaseline(path: string, state: DiskState, expected: Baseline): Outcome<void> {
  if (state.kind === 'directory')
    return fail('INVALID_REQUEST', `"${path}" is a folder, not a file.`, { path, reason: 'is-directory' })
  const actual = state.kind === 'regular' ? state.digest : null
  return actual === expected ? ok(undefined) : conflict(path, expected, state)
}

export type WriteSource = { content: Buffer } | { source_path: string }

/**
 * `write`: the whole file from `content` or from a local `source_path` (a generated file, published
 * byte for byte). Everything invalid fails before the target is touched.
 */
export async function planWrite(
  context: MutatorContext,
  input: { path: string; source: WriteSource; expected: Baseline },
): Promise<Outcome<PlannedChange[]>> {
  const state = await target(context, input.path)
  if (state.kind === 'error') return state
  const baseline = checkBaseline(input.path, state.result, input.expected)
  if (baseline.kind === 'error') return baseline
  const bytes =
    'content' in input.source
      ? ok(input.source.content)
      : await readSource(context, input.source.source_path, state.result)
  if (bytes.kind === 'error') return bytes
  if (bytes.result.length > context.limits.maxFileBytes)
    return tooLarge(input.path, bytes.result.length, context.limits.maxFileBytes)
  const before = state.result
  return ok([
    {
      operation: before.kind === 'absent' ? 'create' : 'modify',
      path: input.path,
      old_path: null,
      before,
      after: {
        kind: 'regular',
        bytes: bytes.result,
        mode: before.kind === 'regular' ? before.mode : DEFAULT_FILE_MODE,
      },
    },
  ])
}

async function readSource(
  context: MutatorContext,
  sourcePath: string,
  targetState: DiskState,
): Promise<Outcome<Buffer>> {
  const details = { source_path: sourcePath }
  if (!isAbsolute(sourcePath)) return fail('INVALID_REQUEST', 'source_path must be an absolute path.', details)
  let info
  try {
    info = await lstat(sourcePath)
  } catch {
    return fail('NOT_FOUND', `The source file "${sourcePath}" does not exist.`, { ...details, reason: 'no-source' })
  }
  if (info.isSymbolicLink())
    return fail('PERMISSION_DENIED', `The source "${sourcePath}" is a symbolic link.`, {
      ...details,
      reason: 'symlink-leaf',
    })
  if (info.isDirectory())
    return fail('INVALID_REQUEST', `The source "${sourcePath}" is a folder.`, { ...details, reason: 'is-directory' })
  if (!info.isFile())
    return fail('PERMISSION_DENIED', `The source "${sourcePath}" is not a regular file.`, {
      ...details,
      reason: 'not-regular',
    })
  if (info.size > context.limits.maxFileBytes) return tooLarge(sourcePath, info.size, context.limits.maxFileBytes)
  try {
    await access(sourcePath, constants.R_OK)
  } catch {
    return fail('PERMISSION_DENIED', `Retrace may not read "${sourcePath}".`, { ...details, reason: 'no-access' })
  }
  let read
  try {
    read = await readLocalFile(sourcePath, context.limits.maxFileBytes)
  } catch {
    return fail('NOT_FOUND', `The source file "${sourcePath}" cannot be opened.`, details)
  }
  if (read.kind === 'not-regular')
    return fail('PERMISSION_DENIED', `The source "${sourcePath}" is not a regular file.`, {
      ...details,
      reason: 'not-regular',
    })
  if (read.kind === 'too-large')
    return tooLarge(sourcePath, context.limits.maxFileBytes + 1, context.limits.maxFileBytes)
  if (
    targetState.kind === 'regular' &&
    read.dev === targetState.identity.dev &&
    read.ino === targetState.identity.ino
  ) {
    return fail('INVALID_REQUEST', 'source_path is the target file itself.', { ...details, reason: 'source-is-target' })
  }
  return ok(read.bytes)
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** `edit`: replace a unique `old_string` (or every occurrence with `replace_all`) in a text file. */
export async function planEdit(
  context: MutatorContext,
  input: { path: string; old_string: string; new_string: string; replace_all: boolean; expected: Baseline },
): Promise<Outcome<PlannedChange[]>> {
  const state = await target(context, input.path)
  if (state.kind === 'error') return state
  const before = state.result
  if (before.kind === 'absent')
    return fail('NOT_FOUND', `"${input.path}" does not exist.`, { path: input.path, reason: 'no-file' })
  const baseline = checkBaseline(input.path, before, input.expected)
  if (baseline.kind === 'error') return baseline
  if (before.kind !== 'regular')
    return fail('INVALID_REQUEST', `"${input.path}" is a folder, not a file.`, {
      path: input.path,
      reason: 'is-directory',
    })
  if (input.old_string === '') return fail('INVALID_REQUEST', 'old_string must not be empty.', { path: input.path })
  if (input.old_string === input.new_string) {
    return fail('INVALID_REQUEST', 'old_string and new_string are the same; nothing would change.', {
      path: input.path,
    })
  }
  let text: string
  try {
    text = utf8.decode(before.bytes)
  } catch {
    return fail('UNSUPPORTED', `"${input.path}" is not UTF-8 text; edit replaces text only.`, {
      path: input.path,
      reason: 'binary',
    })
  }
  const occurrences = text.split(input.old_string).length - 1
  if (occurrences === 0) {
    return fail('NOT_FOUND', `The text to replace was not found in "${input.path}".`, {
      path: input.path,
      reason: 'old-string-not-found',
    })
  }
  if (occurrences > 1 && !input.replace_all) {
    return fail(
      'INVALID_REQUEST',
      `The text to replace occurs ${occurrences} times in "${input.path}"; make it unique or use replace_all.`,
      {
        path: input.path,
        reason: 'old-string-not-unique',
        occurrences,
      },
    )
  }
  const next = input.replace_all
    ? text.split(input.old_string).join(input.new_string)
    : text.replace(input.old_string, () => input.new_string)
  return ok([
    {
      operation: 'modify',
      path: input.path,
      old_path: null,
      before,
      after: { kind: 'regular', bytes: Buffer.from(next, 'utf8'), mode: before.mode },
    },
  ])
}

/** `create`: a new file (optionally with content) or folder; the path must not exist. */
export async function planCreate(
  context: MutatorContext,
  input: { path: string; kind: 'file' | 'dir'; content: Buffer | undefined },
): Promise<Outcome<PlannedChange[]>> {
  const state = await target(context, input.path)
  if (state.kind === 'error') return state
  if (state.result.kind !== 'absent') return conflict(input.path, null, state.result)
  const content = input.content ?? Buffer.alloc(0)
  if (content.length > context.limits.maxFileBytes)
    return tooLarge(input.path, content.length, context.limits.maxFileBytes)
  return ok([
    {
      operation: 'create',
      path: input.path,
      old_path: null,
      before: state.result,
      after:
        input.kind === 'dir' ? { kind: 'directory' } : { kind: 'regular', bytes: content, mode: DEFAULT_FILE_MODE },
    },
  ])
}

/** `rename`: move a file to a path that does not exist; the lineage follows it. */
export async function planRename(
  context: MutatorContext,
  input: { from: string; to: string; expected: Baseline },
): Promise<Outcome<PlannedChange[]>> {
  if (input.from === input.to)
    return fail('INVALID_REQUEST', 'The new name is the same as the old one.', {
      path: input.from,
      reason: 'same-name',
    })
  const source = await target(context, input.from)
  if (source.kind === 'error') return source
  if (source.result.kind === 'absent')
    return fail('NOT_FOUND', `"${input.from}" does not exist.`, { path: input.from, reason: 'no-file' })
  if (source.result.kind === 'directory') {
    return fail('UNSUPPORTED', 'Renaming folders is not supported yet; rename the files inside it.', {
      path: input.from,
      reason: 'is-directory',
    })
  }
  const baseline = checkBaseline(input.from, source.result, input.expected)
  if (baseline.kind === 'error') return baseline
  const destination = await target(context, input.to)
  if (destination.kind === 'error') return destination
  if (destination.result.kind !== 'absent') return conflict(input.to, null, destination.result)
  const before = source.result
  return ok([
    {
      operation: 'rename',
      path: input.to,
      old_path: input.from,
      before,
      destination: destination.result,
      after: { kind: 'regular', bytes: before.bytes, mode: before.mode },
    },
  ])
}

/** `copy`: a new file with the bytes of an existing one; the copy starts its own lineage. */
export async function planCopy(
  context: MutatorContext,
  input: { from: string; to: string },
): Promise<Outcome<PlannedChange[]>> {
  const source = await target(context, input.from)
  if (source.kind === 'error') return source
  if (source.result.kind === 'absent')
    return fail('NOT_FOUND', `"${input.from}" does not exist.`, { path: input.from, reason: 'no-file' })
  if (source.result.kind === 'directory') {
    return fail('UNSUPPORTED', 'Copying folders is not supported yet.', { path: input.from, reason: 'is-directory' })
  }
  const destination = await target(context, input.to)
  if (destination.kind === 'error') return destination
  if (destination.result.kind !== 'absent') return conflict(input.to, null, destination.result)
  return ok([
    {
      operation: 'create',
      path: input.to,
      old_path: null,
      before: destination.result,
      after: { kind: 'regular', bytes: source.result.bytes, mode: source.result.mode },
    },
  ])
}

/** `delete`: a file at its expected revision, or an empty folder. */
export async function planDelete(
  context: MutatorContext,
  input: { path: string; expected: Baseline },
): Promise<Outcome<PlannedChange[]>> {
  const state = await target(context, input.path)
  if (state.kind === 'error') return state
  const before = state.result
  if (before.kind === 'absent')
    return fail('NOT_FOUND', `"${input.path}" does not exist.`, { path: input.path, reason: 'no-file' })
  if (before.kind === 'directory') {
    if (!folderIsEmpty(context.workspace.root, [...before.place.parentSegments, before.place.name])) {
      return fail('UNSUPPORTED', 'Deleting a folder that is not empty is not supported yet; delete its files first.', {
        path: input.path,
        reason: 'directory-not-empty',
      })
    }
    return ok([{ operation: 'delete', path: input.path, old_path: null, before, after: { kind: 'absent' } }])
  }
  const baseline = checkBaseline(input.path, before, input.expected)
  if (baseline.kind === 'error') return baseline
  return ok([{ operation: 'delete', path: input.path, old_path: null, before, after: { kind: 'absent' } }])
}

/** True when the folder exists, is reachable without links, and has no entries. */
function folderIsEmpty(root: string, segments: readonly string[]): boolean {
  const walked = openChain(root, segments)
  if (walked.kind === 'failed') return false
  try {
    return walked.chain.missing.length === 0 && readdirSync(walked.chain.deepest.self).length === 0
  } finally {
    walked.chain.close()
  }
}

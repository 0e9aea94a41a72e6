import { z } from 'zod'
import { fail, failureReason, ok, type Outcome } from '../../../../shared/protocol'
import { openForRead } from '../../files'
import { planWrite, type MutatorContext, type PlannedChange } from '../../journal'
import { readToEnd, type FileIdentity } from '../../project-fs'
import type { ToolContext } from './define-tool'
import { defineJournaledTool } from './journal-results'
import { toolPath } from './tool-paths'

const WriteInput = z
  .object({
    file_path: z.string().min(1),
    content: z.string().optional(),
    source_path: z.string().min(1).optional(),
  })
  .refine((input) => (input.content === undefined) !== (input.source_path === undefined), {
    message: 'Give exactly one of content or source_path.',
  })
type WriteInput = z.infer<typeof WriteInput>

const GENERATE_INSIDE =
  'Generate the file inside the project (for example in a temporary folder there) and pass that path.'

/**
 * The bytes of `source_path`, reached exactly as `read` reaches a file (issue 23): the same path
 * rule (toolPath: inside the root, not in .git) and the same open (openForRead: links followed only
 * while they stay inside the project, the real location opened from the root without following
 * links, never the data directory, never a FIFO or device). The journal's own `source_path` reader
 * takes any absolute path and stays for the engine's trusted callers (Office conversions); a
 * model's argument never reaches it, so /etc/shadow, Retrace's database or /proc/self/environ
 * cannot be copied into the project and read back.
 */
async function readSource(
  context: ToolContext,
  sourcePath: string,
  maxBytes: number,
): Promise<Outcome<{ path: string; bytes: Buffer; identity: FileIdentity }>> {
  const checked = toolPath(context.root, sourcePath)
  if (checked.kind === 'error') {
    return fail(checked.error.code, `source_path: ${checked.error.message} ${GENERATE_INSIDE}`, {
      ...checked.error.details,
      source_path: sourcePath,
    })
  }
  const opened = await openForRead({ root: context.root, dataDir: context.dataDir }, checked.result)
  if (opened.kind === 'error') {
    const outside = opened.error.code === 'PERMISSION_DENIED'
    return fail(opened.error.code, `source_path: ${opened.error.message}${outside ? ` ${GENERATE_INSIDE}` : ''}`, {
      ...opened.error.details,
      source_path: sourcePath,
    })
  }
  const source = opened.result
  try {
    if (source.kind === 'directory') {
      return fail('INVALID_REQUEST', `source_path: "${sourcePath}" is a folder, not a file.`, {
        source_path: sourcePath,
        reason: 'is-directory',
      })
    }
    const bytes = await readToEnd(source.fd, source.size, maxBytes)
    if (bytes === 'too-large') {
      return fail('TOO_LARGE', `source_path: "${sourcePath}" is larger than ${maxBytes} bytes.`, {
        source_path: sourcePath,
        limit: maxBytes,
      })
    }
    return ok({ path: checked.result, bytes, identity: source.identity })
  } finally {
    source.close()
  }
}

async function plan(
  input: WriteInput,
  context: ToolContext,
  planning: MutatorContext,
): Promise<Outcome<PlannedChange[]>> {
  const path = toolPath(context.root, input.file_path)
  if (path.kind === 'error') return path
  let content: Buffer
  let sourceIdentity: FileIdentity | undefined
  if (input.source_path !== undefined) {
    const source = await readSource(context, input.source_path, planning.limits.maxFileBytes)
    if (source.kind === 'error') return source
    content = source.result.bytes
    sourceIdentity = source.result.identity
  } else {
    content = Buffer.from(input.content ?? '')
  }
  const seen = context.reads.get(path.result)
  const planned = await planWrite(planning, { path: path.result, source: { content }, expected: seen ?? null })
  if (planned.kind === 'error' && seen === undefined && failureReason(planned.error) === 'already-exists') {
    // A file never read counts as "must not exist": overwriting unseen content is refused.
    return fail('CONFLICT', `"${path.result}" already exists; read it before replacing it.`, {
      path: path.result,
      reason: 'not-read',
    })
  }
  if (planned.kind === 'ok' && sourceIdentity !== undefined) {
    // Spec 03: the source is never the target itself (also through a link to it).
    const before = planned.result[0]?.before
    if (
      before?.kind === 'regular' &&
      before.identity.dev === sourceIdentity.dev &&
      before.identity.ino === sourceIdentity.ino
    ) {
      return fail('INVALID_REQUEST', 'source_path is the target file itself.', {
        source_path: input.source_path,
        reason: 'source-is-target',
      })
    }
  }
  return planned
}

export const writeTool = defineJournaledTool({
  name: 'write',
  description: [
    'Writes a whole file inside the project, creating it (and missing folders) or replacing it.',
    'Give exactly one of: content (the full new text), or source_path (a file inside the project that you',
    'generated, e.g. with a script into a temporary folder in the project; root-relative or absolute inside',
    'it). Its bytes are published byte for byte — use this for binary or generated documents, and never let',
    'a script overwrite the target directly. A source_path outside the project is refused.',
    'An existing file must be read first; the write is refused if it changed since you read it.',
    'Every write is recorded and can be undone by the user.',
  ].join(' '),
  input: WriteInput,
  verb: 'Wrote',
  pathOf: (input) => input.file_path,
  sourcesOf(input, root) {
    if (input.source_path === undefined) return new Map()
    const target = toolPath(root, input.file_path)
    const source = toolPath(root, input.source_path)
    return target.kind === 'ok' && source.kind === 'ok' ? new Map([[target.result, source.result]]) : new Map()
  },
  plan,
})

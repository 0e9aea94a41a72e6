import { z } from 'zod'
import { fail, type Outcome } from '../../../../shared/protocol'
import { planWrite, type MutatorContext, type PlannedChange, type WriteSource } from '../../journal'
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

async function plan(
  input: WriteInput,
  context: ToolContext,
  planning: MutatorContext,
): Promise<Outcome<PlannedChange[]>> {
  const path = toolPath(context.root, input.file_path)
  if (path.kind === 'error') return path
  const source: WriteSource =
    input.source_path !== undefined ? { source_path: input.source_path } : { content: Buffer.from(input.content ?? '') }
  const seen = context.reads.get(path.result)
  const planned = await planWrite(planning, { path: path.result, source, expected: seen ?? null })
  if (planned.kind === 'error' && seen === undefined && planned.error.details?.reason === 'baseline-mismatch') {
    // A file never read counts as "must not exist": overwriting unseen content is refused.
    return fail('CONFLICT', `"${path.result}" already exists; read it before replacing it.`, {
      path: path.result,
      reason: 'not-read',
    })
  }
  return planned
}

export const writeTool = defineJournaledTool({
  name: 'write',
  description: [
    'Writes a whole file inside the project, creating it (and missing folders) or replacing it.',
    'Give exactly one of: content (the full new text), or source_path (an absolute path to a file you',
    'generated, e.g. with a script into a temp folder; it is published byte for byte — use this for',
    'binary or generated documents, and never let a script overwrite the target directly).',
    'An existing file must be read first; the write is refused if it changed since you read it.',
    'Every write is recorded and can be undone by the user.',
  ].join(' '),
  input: WriteInput,
  verb: 'Wrote',
  pathOf: (input) => input.file_path,
  plan,
})

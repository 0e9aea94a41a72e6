import { z } from 'zod'
import type { Outcome } from '../../../../shared/protocol'
import { planApplyPatch, type MutatorContext, type PlannedChange } from '../../journal'
import type { ToolContext } from './define-tool'
import { checkReadBaselines, defineJournaledTool } from './journal-results'

const PatchInput = z.object({ patch: z.string().min(1) })
type PatchInput = z.infer<typeof PatchInput>

async function plan(
  input: PatchInput,
  context: ToolContext,
  planning: MutatorContext,
): Promise<Outcome<PlannedChange[]>> {
  const planned = await planApplyPatch(planning, input.patch)
  if (planned.kind === 'error') return planned
  const baselines = checkReadBaselines(planned.result, context.reads)
  return baselines.kind === 'error' ? baselines : planned
}

export const applyPatchTool = defineJournaledTool({
  name: 'apply_patch',
  description: [
    'Applies a multi-file patch in one all-or-nothing transaction: if any hunk does not match, nothing',
    'is written. Format:\n*** Begin Patch\n*** Add File: path\n+line\n*** Delete File: path\n',
    '*** Update File: path\n*** Move to: new/path (optional)\n@@ optional context line\n same\n-old\n+new\n',
    '*** End of File (optional anchor)\n*** End Patch\nPaths are relative to the project root. Files you',
    'update, move or delete must have been read first and be unchanged since.',
  ].join(''),
  input: PatchInput,
  verb: 'Patched',
  plan,
})

import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { fail, ok, type Outcome } from '../../../../shared/protocol'
import { toolPath } from './tool-paths'

/** A tool's optional `path` argument: a folder inside the project, '' for the root. */
export async function folderArg(root: string, path: string | undefined): Promise<Outcome<string>> {
  if (path === undefined || path.trim() === '' || path.trim() === '.') return ok('')
  const checked = toolPath(root, path)
  if (checked.kind === 'error') return checked
  try {
    const info = await stat(join(root, checked.result))
    if (!info.isDirectory()) return fail('INVALID_REQUEST', `"${path}" is a file, not a folder.`)
  } catch {
    return fail('NOT_FOUND', `There is no folder "${path}" in the project.`)
  }
  return ok(checked.result)
}

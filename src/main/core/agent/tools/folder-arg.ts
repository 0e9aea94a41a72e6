import { fail, ok, type Outcome } from '../../../../shared/protocol'
import { openForRead } from '../../files'
import { toolPath } from './tool-paths'

/**
 * A tool's optional `path` argument: a folder inside the project, '' for the root. Resolved like a
 * read (spec 11): a symlink that leads outside the project, into .git or the data directory is refused.
 */
export async function folderArg(root: string, dataDir: string, path: string | undefined): Promise<Outcome<string>> {
  if (path === undefined || path.trim() === '' || path.trim() === '.') return ok('')
  const checked = toolPath(root, path)
  if (checked.kind === 'error') return checked
  const opened = await openForRead({ root, dataDir }, checked.result)
  if (opened.kind === 'error') return opened
  opened.result.close()
  if (opened.result.kind !== 'directory') return fail('INVALID_REQUEST', `"${path}" is a file, not a folder.`)
  return ok(checked.result)
}

import type { Outcome } from '../../../shared/protocol'
import { git } from './runner'

/** The absolute path of the repository's index file (for its identity). */
export async function indexPath(root: string): Promise<Outcome<string>> {
  const out = await git(root, ['rev-parse', '--path-format=absolute', '--git-path', 'index'], 'rev-parse')
  return out.kind === 'error' ? out : { kind: 'ok', result: out.result.toString('utf8').trim() }
}

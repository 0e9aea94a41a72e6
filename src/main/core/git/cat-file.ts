import type { Outcome } from '../../../shared/protocol'
import { git } from './runner'

/** The bytes of one blob object (HEAD or index content). */
export function catBlob(root: string, oid: string): Promise<Outcome<Buffer>> {
  return git(root, ['cat-file', 'blob', oid], 'cat-file')
}

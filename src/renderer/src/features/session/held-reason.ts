import { dependencyFolderOf } from '../../../../shared/paths'
import type { HeldReason } from '../../../../shared/protocol'
import type { Translate } from '../../i18n'

/**
 * Why a file changed during a command step is held (issue 23), in the person's words ("held:
 * inside node_modules/"). Shared by Review's This turn and the Undo sheet. `folder`: the entry
 * names the dependency folder or nested repository itself rather than a file in it.
 */
export function heldReasonText(entry: { reason: HeldReason; path: string; folder?: boolean }, t: Translate): string {
  switch (entry.reason) {
    case 'person':
      return t('review.held.person')
    case 'other-session':
      return t('review.held.otherSession')
    case 'ambiguous':
      return t('review.held.ambiguous')
    case 'ignored-folder': {
      const folder = entry.folder === true ? entry.path : dependencyFolderOf(entry.path)
      return folder === null ? t('review.held.dependencyFolder') : t('review.held.inFolder', { folder })
    }
    case 'nested-repository':
      return entry.folder === true
        ? t('review.held.inRepository', { folder: entry.path })
        : t('review.held.nestedRepository')
  }
}

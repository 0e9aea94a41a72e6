import { useI18n } from '../../../i18n'
import type { AutosaveState } from '../../drafts'
import { Alert } from '../../../ui/Alert'

/**
 * What a byte editor's working copy is doing, where a person looks: a quiet note in the file's
 * header while changes wait or travel (no permanent "Saved", spec 08), and a banner when a publish
 * failed (Retry) or the file changed underneath (overwrite with mine, or discard mine).
 */
export function SaveStatusBar(props: {
  state: AutosaveState
  placement: 'badge' | 'banner'
  path?: string
  onRetry?: () => void
  onOverwrite?: () => void
  onDiscard?: () => void
}) {
  const { t } = useI18n()
  const { publishing, dirty, problem } = props.state
  if (props.placement === 'badge') {
    if (publishing)
      return (
        <span className="save-note" role="status">
          {t('save.saving')}
        </span>
      )
    if (dirty && problem === null) return <span className="save-note">{t('save.unsaved')}</span>
    return null
  }
  if (problem?.kind === 'failed') {
    return (
      <Alert as="div" className="save-banner save-banner-error" testId="save-failed">
        <span>{t('save.failed', { path: props.path ?? '', message: problem.message })}</span>
        <button type="button" onClick={props.onRetry}>
          {t('save.retry')}
        </button>
      </Alert>
    )
  }
  if (problem?.kind === 'conflict') {
    return (
      <Alert as="div" className="save-banner" testId="save-conflict">
        <strong>{t('save.conflict')}</strong>
        <span>{t('save.conflictDetail')}</span>
        <button type="button" onClick={props.onOverwrite}>
          {t('save.overwrite')}
        </button>
        <button type="button" onClick={props.onDiscard}>
          {t('save.reload')}
        </button>
      </Alert>
    )
  }
  return null
}

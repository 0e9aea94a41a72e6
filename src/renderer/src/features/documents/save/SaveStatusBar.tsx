import { useI18n } from '../../../i18n'
import { useStore } from '../../../ui/store'
import type { BinaryAutosave } from './binary-autosave'

/**
 * What autosave is doing, where a person looks: a quiet note in the file's header while changes
 * wait or travel (no permanent "Saved", spec 08), and a banner when a publish failed (Retry) or
 * the file changed underneath (overwrite with mine, or discard mine).
 */
export function SaveStatusBar(props: {
  autosave: BinaryAutosave
  placement: 'badge' | 'banner'
  path?: string
  onOverwrite?: () => void
  onDiscard?: () => void
}) {
  const { t } = useI18n()
  const status = useStore(props.autosave.store, (s) => s.status)
  if (props.placement === 'badge') {
    if (status.kind === 'pending') return <span className="save-note">{t('save.unsaved')}</span>
    if (status.kind === 'saving')
      return (
        <span className="save-note" role="status">
          {t('save.saving')}
        </span>
      )
    return null
  }
  if (status.kind === 'failed') {
    return (
      <div className="save-banner save-banner-error" role="alert" data-testid="save-failed">
        <span>{t('save.failed', { path: props.path ?? '', message: status.message })}</span>
        <button type="button" onClick={() => props.autosave.retry()}>
          {t('save.retry')}
        </button>
      </div>
    )
  }
  if (status.kind === 'conflict') {
    return (
      <div className="save-banner" role="alert" data-testid="save-conflict">
        <strong>{t('save.conflict')}</strong>
        <span>{t('save.conflictDetail')}</span>
        <button type="button" onClick={props.onOverwrite}>
          {t('save.overwrite')}
        </button>
        <button type="button" onClick={props.onDiscard}>
          {t('save.reload')}
        </button>
      </div>
    )
  }
  return null
}

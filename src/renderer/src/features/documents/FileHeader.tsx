import { useI18n } from '../../i18n'
import { Icon } from '../../ui/Icon'
import type { AutosaveState } from '../drafts'
import { SaveStatusBar } from './working-copy/SaveStatusBar'

/**
 * A file tab's header: where the file is, whether it is read-only, what its working copy is doing
 * (text: "Saving…" / "Unsaved changes"; a byte editor: the same as a quiet note), History and
 * Reveal in the explorer.
 */
export function FileHeader(props: {
  path: string
  readOnly: boolean
  /** Which working copy saves this file, if any. */
  saves: 'text' | 'bytes' | null
  state: AutosaveState
  historyOpen: boolean
  onHistory: () => void
  onReveal: () => void
}) {
  const { t } = useI18n()
  return (
    <header className="viewer-header">
      <nav className="viewer-path" aria-label={t('viewer.breadcrumbs')}>
        {props.path.split('/').map((segment, index, all) => (
          <span key={index} className={index === all.length - 1 ? 'crumb crumb-last' : 'crumb'}>
            {segment}
          </span>
        ))}
      </nav>
      {props.readOnly && <span className="badge">{t('viewer.readOnly')}</span>}
      {props.saves === 'bytes' && <SaveStatusBar state={props.state} placement="badge" />}
      {props.saves === 'text' && (
        <span className="save-state" role="status" data-testid="save-state" data-dirty={props.state.dirty}>
          {props.state.publishing ? t('edit.saving') : props.state.dirty ? t('edit.unsaved') : ''}
        </span>
      )}
      <button
        type="button"
        className="icon-button"
        data-testid="history-toggle"
        aria-pressed={props.historyOpen}
        aria-label={t('history.toggle')}
        title={t('history.toggle')}
        onClick={props.onHistory}
      >
        <Icon name="history" />
      </button>
      <button
        type="button"
        className="icon-button"
        aria-label={t('viewer.reveal')}
        title={t('viewer.reveal')}
        onClick={props.onReveal}
      >
        <Icon name="list-tree" />
      </button>
    </header>
  )
}

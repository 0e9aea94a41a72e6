import { useI18n } from '../../i18n'

/** What the last /undo or /redo did, for the note that says so. */
export interface RestoreDone {
  readonly kind: 'undone' | 'redone'
  /** Files the restore put back. */
  readonly files: number
  /** The session it was done in: the note belongs to that conversation only. */
  readonly sessionId: string
}

/**
 * Says what /undo or /redo just did, with the way back one click (or Tab, Enter) away — as an
 * editor's "Undone · Redo" toast. Decision: it stays until the next prompt, command or dismissal
 * rather than fading out on a timer, so a person who reads slowly or uses a screen reader never
 * loses the button (WCAG 2.2.1); it is a polite status, announced once.
 */
export function RestoreNote(props: { done: RestoreDone; onOpposite: () => void; onDismiss: () => void }) {
  const { t } = useI18n()
  const { kind, files } = props.done
  return (
    <div className="restore-note" role="status" data-testid="restore-note">
      <span>{t(kind === 'undone' ? 'chat.undoneNote' : 'chat.redoneNote', { count: files })}</span>
      <button type="button" onClick={props.onOpposite} data-testid="restore-note-opposite">
        {t(kind === 'undone' ? 'chat.redoAction' : 'chat.undoAction')}
      </button>
      <button
        type="button"
        className="icon-button"
        aria-label={t('chat.dismissNote')}
        title={t('chat.dismissNote')}
        onClick={props.onDismiss}
      >
        ×
      </button>
    </div>
  )
}

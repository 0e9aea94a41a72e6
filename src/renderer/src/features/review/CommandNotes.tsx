import { useI18n } from '../../i18n'
import { heldReasonText } from '../session'
import type { ReviewCommandNotes } from './use-review'

/**
 * Issue 23 "what was not recorded is said, never silent": below This turn's rows, the files its
 * commands changed that Undo leaves alone unless asked (held, with the reason) and what the
 * snapshots could not record. A labelled section rather than rows: a held file is not the turn's
 * change, and a dependency folder can hold thousands of files.
 */
export function CommandNotes(props: { notes: ReviewCommandNotes }) {
  const { t } = useI18n()
  const { notes } = props
  const listed = notes.held.reduce((sum, entry) => sum + entry.files, 0)
  return (
    <section
      className="review-command-notes"
      aria-labelledby="review-command-notes-title"
      data-testid="review-command-notes"
    >
      <h3 id="review-command-notes-title">{t('review.notRestoredTitle')}</h3>
      {notes.unrecorded && (
        <p className="review-note" role="note" data-kind={`unrecorded-${notes.unrecorded.reason}`}>
          {t('turnCard.unrecorded', { reason: notes.unrecorded.message })}
        </p>
      )}
      {notes.excluded.map((entry) => (
        <p key={entry.reason} className="review-note" role="note" data-kind={`excluded-${entry.reason}`}>
          {t(`turnCard.excluded.${entry.reason}`, { count: entry.files })}
        </p>
      ))}
      {notes.held.length > 0 && (
        <>
          <ul className="review-held" aria-label={t('review.heldList')}>
            {notes.held.map((entry) => (
              <li
                key={`${entry.reason}:${entry.path}`}
                data-testid="review-held"
                data-path={entry.path}
                data-reason={entry.reason}
              >
                <code>{entry.folder ? `${entry.path}/` : entry.path}</code>
                <span className="review-held-reason">
                  {heldReasonText(entry, t)}
                  {entry.folder && ` · ${t('review.held.files', { count: entry.files })}`}
                </span>
              </li>
            ))}
          </ul>
          {notes.held_files > listed && (
            <p className="review-note">{t('review.held.more', { count: notes.held_files - listed })}</p>
          )}
          <p className="review-note">{t('review.held.hint')}</p>
        </>
      )}
    </section>
  )
}

import { useEffect, useRef, type ReactNode } from 'react'
import type { TurnSummaryData } from '../../../../shared/protocol'
import { baseName, parentPath } from '../../../../shared/paths'
import { useI18n } from '../../i18n'
import { FileEditIcon, RestoreIcon } from './icons'
import { OPERATION_LABEL, RestorePanel } from './RestorePanel'
import { commandNotes } from './transcript-model'
import { executableActions, restoredState } from './turn-actions'
import type { RestoreOffers } from '../session'
import { useNarrow } from './use-narrow'
import { useRestore } from './use-restore'

/** At this card width and below the title abbreviates (spec 07). */
const NARROW_CARD_PX = 420

/**
 * The turn card (spec 07 "Turn card"): exact counts from the summary persisted at finalize, the
 * first files, and only the restores that are executable now. Plain replies never mount one.
 */
export function TurnCard(props: {
  projectId: string
  sessionId: string
  turnId: string
  summary: TurnSummaryData
  offers: RestoreOffers
  /** A turn is running in the session: restores would be blocked, so the actions wait. */
  sessionBusy: boolean
  onRestored: () => void
  /** Where the Review button (This turn, spec 07) goes once the Review tab exists. */
  review?: ReactNode
  /** Opens Review on This turn's "Changed by commands" filter. */
  onReviewCommands?: () => void
  /** A blocked restore's way forward: open a conflicting file, or review it in this turn. */
  onOpenFile?: ((path: string) => void) | undefined
  onReviewFile?: ((path: string) => void) | undefined
}) {
  const { t } = useI18n()
  const { summary } = props
  const ref = useRef<HTMLDivElement>(null)
  const narrow = useNarrow(ref, NARROW_CARD_PX)
  const restore = useRestore({
    projectId: props.projectId,
    sessionId: props.sessionId,
    turnId: props.turnId,
    onApplied: props.onRestored,
  })
  const actions = executableActions(props.turnId, props.offers)
  const restored = restoredState(props.turnId, props.offers)
  const exact = summary.added !== null && summary.removed !== null
  const added = summary.added ?? 0
  const removed = summary.removed ?? 0
  const churn = added + removed
  const busy = restore.state.kind === 'planning' || restore.state.kind === 'applying'
  const shown = summary.first_files.slice(0, 3)
  const more = summary.files - shown.length
  const commandFiles = summary.command_files ?? 0
  const notes = commandNotes(summary, t)
  const footer = restored !== null || restore.state.kind !== 'idle' || commandFiles > 0 || notes.length > 0
  const footerRef = useRef<HTMLDivElement>(null)
  const restoreStep = restore.state.kind

  // A preview opens below the card's fold; bring it into view (spec 04: the impact is shown first).
  useEffect(() => {
    if (restoreStep !== 'idle') footerRef.current?.scrollIntoView({ block: 'nearest' })
  }, [restoreStep])

  return (
    <div className="turn-card" data-testid="turn-card" ref={ref}>
      <div className="turn-card-header">
        <span className="turn-card-icon">
          <FileEditIcon />
        </span>
        <span className="turn-card-title" data-testid="turn-card-files">
          {t(
            summary.files === 1
              ? narrow
                ? 'turnCard.fileShort'
                : 'turnCard.file'
              : narrow
                ? 'turnCard.filesShort'
                : 'turnCard.files',
            { count: summary.files },
          )}
        </span>
        <span className="turn-card-stats" title={exact ? undefined : t('turnCard.notExact')}>
          <span className="turn-card-counts">
            <span className="stat-added" data-testid="turn-card-added">
              {exact ? `+${added}` : '—'}
            </span>
            <span className="stat-removed" data-testid="turn-card-removed">
              {exact ? `\u2212${removed}` : '—'}
            </span>
          </span>
          <span className="turn-card-bar" aria-hidden="true">
            {exact && churn > 0 && (
              <>
                <span className="bar-added" style={{ width: `${(added / churn) * 100}%` }} />
                <span className="bar-removed" style={{ width: `${(removed / churn) * 100}%` }} />
              </>
            )}
          </span>
        </span>
        <span className="turn-card-actions">
          {actions.map((operation) => (
            <button
              key={operation}
              type="button"
              className="turn-action"
              disabled={busy || props.sessionBusy}
              title={props.sessionBusy ? t('turnCard.waitForTurn') : undefined}
              onClick={() => void restore.preview(operation)}
              data-testid={`turn-action-${operation}`}
            >
              <RestoreIcon operation={operation} />
              <span>{t(OPERATION_LABEL[operation])}</span>
            </button>
          ))}
          {props.review}
        </span>
      </div>
      {/* A turn only its commands changed has no files of its own: no empty bordered strip. */}
      {(shown.length > 0 || more > 0) && (
        <div className="turn-card-body">
          <ul className="turn-card-files">
            {shown.map((path) => (
              <li key={path} className="turn-card-file" title={path}>
                <strong>{baseName(path)}</strong>
                {parentPath(path) !== '' && <span className="file-dir">{parentPath(path)}</span>}
              </li>
            ))}
          </ul>
          {more > 0 && <div className="turn-card-more">{t('turnCard.more', { count: more })}</div>}
        </div>
      )}
      {footer && (
        <div className="turn-card-footer" ref={footerRef}>
          {commandFiles > 0 && restore.state.kind === 'idle' && (
            <button
              type="button"
              className="turn-card-commands"
              data-testid="turn-card-commands"
              disabled={props.onReviewCommands === undefined}
              onClick={props.onReviewCommands}
            >
              {t(commandFiles === 1 ? 'turnCard.commandFile' : 'turnCard.commandFiles', { count: commandFiles })}
            </button>
          )}
          {notes.length > 0 && restore.state.kind === 'idle' && (
            <ul
              className="turn-card-command-notes"
              aria-label={t('turnCard.commandNotes')}
              data-testid="turn-card-command-notes"
            >
              {notes.map((note) => (
                <li key={note.key} data-kind={note.key}>
                  {note.text}
                </li>
              ))}
            </ul>
          )}
          {restored !== null && restore.state.kind === 'idle' && (
            <p className="turn-card-note">{t(restored === 'undone' ? 'turnCard.undone' : 'turnCard.reverted')}</p>
          )}
          <RestorePanel
            state={restore.state}
            conflicts={{
              projectId: props.projectId,
              sessionId: props.sessionId,
              onOpenFile: props.onOpenFile,
              onReview: props.onReviewFile,
            }}
            onConfirm={(plan, key) => void restore.apply(plan, key)}
            onPreview={(operation, options) => void restore.preview(operation, options)}
            onClose={restore.close}
          />
        </div>
      )}
    </div>
  )
}

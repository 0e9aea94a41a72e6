import type { TurnPart } from '../../../../shared/protocol'
import { useI18n } from '../../i18n'
import type { RequestOutcome } from '../../transport'
import { Icon } from '../../ui/Icon'
import { NoticeView } from './NoticeView'
import { ReasoningView } from './ReasoningView'
import { ToolPartView } from './ToolPartView'
import { summaryOf, type RestoreOffers, type TranscriptNode } from '../session'
import { snapshotNoteOf } from './transcript-model'
import { TurnCard } from './TurnCard'
import type { ApprovalDecision } from './types'

export interface TurnContext {
  readonly projectId: string
  readonly sessionId: string
  readonly offers: RestoreOffers
  readonly sessionBusy: boolean
  readonly onDecide: (toolCallId: string, decision: ApprovalDecision) => Promise<RequestOutcome<unknown>>
  readonly onRestored: () => void
  readonly onOpenSettings: () => void
  /** Opens the Review tab on This turn for a turn with changes (optionally on one of its files). */
  readonly onReview?: (turnId: string, path?: string) => void
  /** Opens Review on This turn's "Changed by commands" filter. */
  readonly onReviewCommands?: (turnId: string) => void
  /** Opens a project file in a tab. */
  readonly onOpenFile?: (path: string) => void
  /** Multi-turn restores and branches from a finished turn (spec 04). */
  readonly onRestoreAfter?: (turnId: string) => void
  /** The active head while the files hold its code: nothing to restore to after it. */
  readonly alignedHeadId?: string | null
  readonly onBranch?: (turnId: string) => void
  readonly onFork?: (turnId: string) => void
}

function PartView(props: { part: TurnPart; context: TurnContext; onRetry: (() => void) | undefined }) {
  const { part, context } = props
  switch (part.type) {
    case 'text':
      return part.text === '' ? null : <div className="assistant-text">{part.text}</div>
    case 'reasoning':
      return part.text === '' ? null : <ReasoningView text={part.text} />
    case 'tool':
      return <ToolPartView part={part} onDecide={(decision) => context.onDecide(part.id, decision)} />
    case 'notice':
      return <NoticeView part={part} onRetry={props.onRetry} onOpenSettings={context.onOpenSettings} />
    case 'step-start':
    case 'step-finish':
    case 'patch':
    case 'file-summary':
      // Bookkeeping: the turn card shows the summary; steps carry snapshots and token counts.
      return null
  }
}

/** One assistant turn: its parts in order, a working line while it runs, and its turn card. */
export function AssistantTurn(props: {
  node: TranscriptNode
  context: TurnContext
  /** Sends the turn's prompt again; absent when there is none or a turn is running. */
  onRetry: (() => void) | undefined
}) {
  const { t } = useI18n()
  const { node, context } = props
  const summary = summaryOf(node)
  // A turn whose commands left only notes (issue 23: not recorded, or held) still shows its card.
  const changed =
    summary !== null &&
    (summary.files > 0 ||
      (summary.command_files ?? 0) > 0 ||
      summary.command_held !== undefined ||
      summary.command_excluded !== undefined ||
      summary.command_unrecorded !== undefined)
  const running = node.status === 'running'
  return (
    <div className="assistant-turn" data-testid="turn" data-turn-id={node.node_id} data-status={node.status}>
      {node.parts.map((part, index) => (
        <PartView key={`${index}:${part.type}`} part={part} context={context} onRetry={props.onRetry} />
      ))}
      {running && (
        <p className="turn-running" role="status">
          <span className="turn-running-dot" aria-hidden="true" />
          {t('chat.working')}
        </p>
      )}
      {!running && snapshotNoteOf(node) !== null && (
        <p className="turn-snapshot-note" data-testid="turn-snapshot-note" data-reason={snapshotNoteOf(node)?.reason}>
          {t('turnCard.commandsUntracked', { reason: snapshotNoteOf(node)?.message ?? '' })}
        </p>
      )}
      {!running && summary !== null && changed && (
        <TurnCard
          projectId={context.projectId}
          sessionId={context.sessionId}
          turnId={node.node_id}
          summary={summary}
          offers={context.offers}
          sessionBusy={context.sessionBusy}
          onRestored={context.onRestored}
          {...(context.onReviewCommands ? { onReviewCommands: () => context.onReviewCommands?.(node.node_id) } : {})}
          onOpenFile={context.onOpenFile}
          onReviewFile={context.onReview ? (path) => context.onReview?.(node.node_id, path) : undefined}
          review={
            context.onReview ? (
              <button
                type="button"
                className="turn-card-review"
                data-testid="turn-review"
                onClick={() => context.onReview?.(node.node_id)}
              >
                {t('turnCard.review')}
              </button>
            ) : undefined
          }
        />
      )}
      {!running && !context.sessionBusy && (context.onRestoreAfter || context.onBranch || context.onFork) && (
        <div className="message-actions turn-actions-footer" role="group" aria-label={t('turn.actions')}>
          {context.onRestoreAfter && context.alignedHeadId !== node.node_id && (
            <button
              type="button"
              className="message-action"
              onClick={() => context.onRestoreAfter?.(node.node_id)}
              data-testid="restore-after"
            >
              <Icon name="history" />
              <span>{t('turn.restoreAfter')}</span>
            </button>
          )}
          {context.onBranch && (
            <button
              type="button"
              className="message-action message-action-two-line"
              aria-label={`${t('turn.branchFromHere')} — ${t('turn.filesStay')}`}
              onClick={() => context.onBranch?.(node.node_id)}
              data-testid="branch-from-here"
            >
              <Icon name="git-branch" />
              <span className="message-action-text">
                <span>{t('turn.branchFromHere')}</span>
                <span className="message-action-subtitle">{t('turn.filesStay')}</span>
              </span>
            </button>
          )}
          {context.onFork && (
            <button
              type="button"
              className="message-action"
              onClick={() => context.onFork?.(node.node_id)}
              data-testid="fork-task"
            >
              <Icon name="repo-forked" />
              <span>{t('turn.fork')}</span>
            </button>
          )}
        </div>
      )}
    </div>
  )
}

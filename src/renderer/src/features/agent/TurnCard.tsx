import { useEffect, useRef, useState } from 'react'
import type { ResultOf, TurnSummaryData } from '../../../../shared/protocol'
import { baseName, parentPath } from '../../../../shared/paths'
import { useClient } from '../../app/client-context'
import { useI18n } from '../../i18n'
import { failureMessage } from '../../ui/outcome-message'

type Operation = 'undo' | 'redo' | 'revert' | 'reapply'
type Plan = ResultOf<'history.plan'>
type Offers = ResultOf<'session.transcript'>['restore']

/** Only the executable action (spec 07): Undo the latest, Redo right after, Reapply after a revert, else Revert. */
export function actionFor(turnId: string, offers: Offers): Operation {
  if (offers.redo_turn_id === turnId) return 'redo'
  if (offers.undone_turn_ids.includes(turnId)) return 'reapply'
  if (offers.undo_turn_id === turnId) return 'undo'
  return 'revert'
}

const ICONS: Record<Operation, string> = { undo: '↶', redo: '↷', revert: '↶', reapply: '↷' }

/** The turn card (spec 07 "Turn card"): exact counts from the persisted summary, never a query per message. */
export function TurnCard(props: {
  projectId: string
  sessionId: string
  turnId: string
  summary: TurnSummaryData
  offers: Offers
  running: boolean
  onChanged: () => void
}) {
  const client = useClient()
  const { t } = useI18n()
  const { summary } = props
  const owner = { project_id: props.projectId, session_id: props.sessionId }
  const [plan, setPlan] = useState<Plan | null>(null)
  const [message, setMessage] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [narrow, setNarrow] = useState(false)
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = ref.current
    if (!element) return
    const observer = new ResizeObserver(([entry]) => setNarrow((entry?.contentRect.width ?? 500) <= 420))
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  const operation = actionFor(props.turnId, props.offers)
  const undone = props.offers.undone_turn_ids.includes(props.turnId)
  const added = summary.added
  const removed = summary.removed
  const total = (added ?? 0) + (removed ?? 0)
  const addedShare = total === 0 ? 0.5 : (added ?? 0) / total

  async function preview() {
    setBusy(true)
    setMessage(null)
    const outcome = await client.request('history.plan', { operation, turn_id: props.turnId }, { owner })
    setBusy(false)
    if (outcome.kind === 'ok') setPlan(outcome.result)
    else setMessage(failureMessage(outcome, t))
  }
  async function apply(current: Plan) {
    setBusy(true)
    const outcome = await client.request(
      'history.apply',
      { plan_hash: current.plan_hash },
      { owner, idempotencyKey: crypto.randomUUID() },
    )
    setBusy(false)
    setPlan(null)
    if (outcome.kind === 'ok' && outcome.result.status === 'committed') setMessage(null)
    else if (outcome.kind === 'ok') setMessage(t('turnCard.applyStatus', { status: outcome.result.status }))
    else setMessage(failureMessage(outcome, t))
    props.onChanged()
  }

  return (
    <div className="turn-card" data-testid="turn-card" ref={ref}>
      <div className="turn-card-header">
        <svg className="turn-card-icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
          <path d="M3 1.5h6l4 4V14.5H3z M9 1.5v4h4" fill="none" stroke="currentColor" strokeWidth="1.2" />
          <path d="M5.5 10.5l4-4 1.2 1.2-4 4H5.5z" fill="currentColor" />
        </svg>
        <span className="turn-card-title" data-testid="turn-card-files">
          {narrow ? t('turnCard.filesShort', { count: summary.files }) : t('turnCard.files', { count: summary.files })}
        </span>
        <span className="turn-card-stats" title={added === null ? t('turnCard.notExact') : undefined}>
          <span className="turn-card-counts">
            <span className="stat-added" data-testid="turn-card-added">
              +{added ?? '—'}
            </span>
            <span className="stat-removed" data-testid="turn-card-removed">
              −{removed ?? '—'}
            </span>
          </span>
          <span className="turn-card-bar" aria-hidden="true">
            <span className="bar-added" style={{ width: `${addedShare * 100}%` }} />
            <span className="bar-removed" style={{ width: `${(1 - addedShare) * 100}%` }} />
          </span>
        </span>
        {!props.running && (
          <button
            type="button"
            className="turn-card-action"
            data-testid={`turn-action-${operation}`}
            disabled={busy}
            onClick={() => void preview()}
          >
            <span aria-hidden="true">{ICONS[operation]}</span> {t(`turnCard.${operation}`)}
          </button>
        )}
        {/* The Review button (This turn) arrives with the Review tab issue. */}
      </div>
      <div className="turn-card-body">
        {summary.first_files.map((path) => (
          <div key={path} className="turn-card-file">
            {parentPath(path) !== '' && <span className="file-dir">{parentPath(path)}/</span>}
            <strong>{baseName(path)}</strong>
          </div>
        ))}
        {summary.files > summary.first_files.length && (
          <div className="turn-card-more">
            {t('turnCard.more', { count: summary.files - summary.first_files.length })}
          </div>
        )}
      </div>
      {plan && (
        <div className="restore-confirm" data-testid="restore-confirm">
          {plan.status === 'ready' && (
            <>
              <p>{t('turnCard.confirm', { operation: t(`turnCard.${operation}`), count: plan.impact.files })}</p>
              <ul>
                {plan.actions.map((action) => (
                  <li key={action.path}>{action.path}</li>
                ))}
              </ul>
              <div className="restore-actions">
                <button
                  type="button"
                  className="primary"
                  data-testid="restore-confirm-apply"
                  disabled={busy}
                  onClick={() => void apply(plan)}
                >
                  {t(`turnCard.${operation}`)}
                </button>
                <button type="button" data-testid="restore-cancel" onClick={() => setPlan(null)}>
                  {t('explorer.cancel')}
                </button>
              </div>
            </>
          )}
          {plan.status === 'blocked' && (
            <>
              <p>{t('turnCard.blocked')}</p>
              <ul>
                {plan.conflicts.map((conflict) => (
                  <li key={`${conflict.path}:${conflict.reason}`}>
                    <strong>{conflict.path}</strong>: {conflict.message}
                  </li>
                ))}
              </ul>
              <button type="button" data-testid="restore-cancel" onClick={() => setPlan(null)}>
                {t('turnCard.close')}
              </button>
            </>
          )}
          {plan.status === 'unavailable' && (
            <>
              <p>{t('turnCard.unavailable')}</p>
              <ul>
                {plan.unavailable.map((entry) => (
                  <li key={entry.path}>
                    {entry.path}: {entry.reason}
                  </li>
                ))}
              </ul>
              <button type="button" data-testid="restore-cancel" onClick={() => setPlan(null)}>
                {t('turnCard.close')}
              </button>
            </>
          )}
        </div>
      )}
      {(message || undone) && (
        <div className="turn-card-footer" role={message ? 'alert' : undefined}>
          {message ?? t('turnCard.reverted')}
        </div>
      )}
    </div>
  )
}

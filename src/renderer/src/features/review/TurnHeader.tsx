import { useI18n } from '../../i18n'
import { Icon } from '../../ui/Icon'
import type { TurnWithChanges } from '../session'

const FOLLOW = ''

/** "Turn 3 · <first line of the prompt>" with a picker; following the latest unless one is pinned. */
export function TurnHeader(props: {
  turns: readonly TurnWithChanges[] | null
  turn: TurnWithChanges | null
  pinned: boolean
  onPick: (turnId: string | null) => void
}) {
  const { t } = useI18n()
  const { turns, turn } = props
  if (turns === null) return <p className="review-turn review-note">{t('review.loading')}</p>
  if (turns.length === 0 || turn === null) {
    return (
      <p className="review-turn review-note" data-testid="review-turn-title">
        {t('review.noTurns')}
      </p>
    )
  }
  return (
    <div className="review-turn">
      <h3 className="review-turn-title" data-testid="review-turn-title" title={turn.prompt}>
        <span className="review-turn-number">{t('review.turnNumber', { number: turn.number })}</span>
        {turn.prompt !== '' && <span className="review-turn-prompt"> · {turn.prompt}</span>}
      </h3>
      <div className="review-turn-controls">
        <label className="visually-hidden" htmlFor="review-turn-picker">
          {t('review.pickTurn')}
        </label>
        <select
          id="review-turn-picker"
          value={props.pinned ? turn.turnId : FOLLOW}
          onChange={(event) => props.onPick(event.target.value === FOLLOW ? null : event.target.value)}
          data-testid="review-turn-picker"
        >
          <option value={FOLLOW}>{t('review.followLatest')}</option>
          {[...turns].reverse().map((option) => (
            <option key={option.turnId} value={option.turnId}>
              {t('review.turnNumber', { number: option.number })} · {option.prompt.slice(0, 60)}
            </option>
          ))}
        </select>
        {props.pinned ? (
          <span className="badge" title={t('review.pinnedHint')}>
            <Icon name="pinned" /> {t('review.pinned')}
          </span>
        ) : (
          <span className="badge badge-quiet">{t('review.following')}</span>
        )}
      </div>
    </div>
  )
}

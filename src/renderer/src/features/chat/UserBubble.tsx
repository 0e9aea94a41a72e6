import { useI18n } from '../../i18n'
import { Icon } from '../../ui/Icon'
import { textOf, type TranscriptNode } from '../session'

/**
 * A prompt, with its footer action (spec 04): "Restore checkpoint" opens the impact sheet for
 * the checkpoint before this prompt. Offered once the turn answering it has finished.
 */
export function UserBubble(props: {
  node: TranscriptNode
  /** Opens the impact sheet; absent while nothing can be restored here (no answer yet, a turn running). */
  onRestoreCheckpoint?: (() => void) | undefined
}) {
  const { t } = useI18n()
  return (
    <div className="user-message" data-node-id={props.node.node_id}>
      <div className="user-bubble" data-testid="user-message">
        {textOf(props.node)}
      </div>
      {props.onRestoreCheckpoint && (
        <div className="message-actions user-actions">
          <button
            type="button"
            className="message-action"
            aria-label={t('turn.restoreCheckpointLabel')}
            title={t('turn.restoreCheckpointLabel')}
            onClick={props.onRestoreCheckpoint}
            data-testid="restore-checkpoint"
          >
            <Icon name="discard" />
            <span>{t('turn.restoreCheckpoint')}</span>
          </button>
        </div>
      )}
    </div>
  )
}

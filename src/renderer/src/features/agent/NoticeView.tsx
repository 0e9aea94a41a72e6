import type { NoticePart } from '../../../../shared/protocol'
import { useI18n } from '../../i18n'

/** Why a turn stopped early, with Retry where another attempt can help. */
export function NoticeView(props: { part: NoticePart; onRetry?: () => void }) {
  const { t } = useI18n()
  return (
    <div
      className={`notice notice-${props.part.reason}`}
      data-testid="notice"
      data-reason={props.part.reason}
      role="status"
    >
      <span>{props.part.message}</span>
      {props.part.retryable && props.onRetry && (
        <button type="button" data-testid="notice-retry" onClick={props.onRetry}>
          {t('chat.retry')}
        </button>
      )}
    </div>
  )
}

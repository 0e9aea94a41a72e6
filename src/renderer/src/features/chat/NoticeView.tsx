import type { NoticePart } from '../../../../shared/protocol'
import { useI18n, type MessageKey } from '../../i18n'

const REASON_LABEL: Record<NoticePart['reason'], MessageKey> = {
  'provider-error': 'notice.providerError',
  'no-model': 'notice.noModel',
  'step-limit': 'notice.stepLimit',
  'repeated-calls': 'notice.repeatedCalls',
  stalled: 'notice.stalled',
  aborted: 'notice.aborted',
  interrupted: 'notice.interrupted',
}

const SERIOUS: ReadonlySet<NoticePart['reason']> = new Set(['provider-error', 'stalled', 'interrupted', 'no-model'])

/** Why a turn stopped early, with Retry where another attempt can help. */
export function NoticeView(props: {
  part: NoticePart
  /** Absent while a turn runs or when there is no prompt to send again. */
  onRetry?: () => void
  onOpenSettings: () => void
}) {
  const { t } = useI18n()
  const { part } = props
  return (
    <div
      className={SERIOUS.has(part.reason) ? 'notice notice-serious' : 'notice'}
      data-testid="notice"
      data-reason={part.reason}
      role="status"
    >
      <div className="notice-text">
        <strong>{t(REASON_LABEL[part.reason])}</strong>
        <span>
          {part.message}
          {part.code !== undefined && <span className="notice-code"> ({part.code})</span>}
        </span>
      </div>
      <div className="notice-actions">
        {part.reason === 'no-model' && (
          <button type="button" onClick={props.onOpenSettings}>
            {t('settings.open')}
          </button>
        )}
        {part.retryable && props.onRetry && (
          <button type="button" onClick={props.onRetry} data-testid="notice-retry">
            {t('chat.retry')}
          </button>
        )}
      </div>
    </div>
  )
}

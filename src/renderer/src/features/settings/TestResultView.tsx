import type { ResultOf } from '../../../../shared/protocol'
import { useI18n, type MessageKey } from '../../i18n'

export type TestOutcome = ResultOf<'settings.test_provider'>
type FailedReason = Extract<TestOutcome, { status: 'failed' }>['reason']

const REASON_LABEL: Record<FailedReason, MessageKey> = {
  unauthorized: 'settings.test.unauthorized',
  'not-found': 'settings.test.notFound',
  unreachable: 'settings.test.unreachable',
  'bad-response': 'settings.test.badResponse',
  'no-key': 'settings.test.noKey',
  'http-error': 'settings.test.httpError',
}

const MODELS_SHOWN = 12

/** A connection test's answer: the models the provider lists, or precisely what failed. */
export function TestResultView(props: { model: string; result: TestOutcome }) {
  const { t } = useI18n()
  const { result } = props
  if (result.status === 'failed') {
    return (
      <div className="test-result test-failed" role="status" data-testid="provider-test" data-status="failed">
        <strong>
          {t(REASON_LABEL[result.reason])}
          {result.http_status !== undefined && ` (HTTP ${result.http_status})`}
        </strong>
        <span>{result.message}</span>
      </div>
    )
  }
  const extra = result.models.length - MODELS_SHOWN
  return (
    <div className="test-result test-ok" role="status" data-testid="provider-test" data-status="ok">
      <strong>{t('settings.test.ok', { count: result.models.length })}</strong>
      <span className={result.model_listed ? 'test-model-listed' : 'test-model-missing'}>
        {t(result.model_listed ? 'settings.test.modelListed' : 'settings.test.modelMissing', { model: props.model })}
      </span>
      {result.models.length > 0 && (
        <ul className="test-models">
          {result.models.slice(0, MODELS_SHOWN).map((model) => (
            <li key={model} className={model === props.model ? 'chosen' : undefined}>
              {model}
            </li>
          ))}
          {extra > 0 && <li className="more">{t('turnCard.more', { count: extra })}</li>}
        </ul>
      )}
    </div>
  )
}

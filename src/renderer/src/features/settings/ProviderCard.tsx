import { useState } from 'react'
import type { ProviderView } from '../../../../shared/protocol'
import { useI18n } from '../../i18n'
import { ErrorLine } from '../../ui/ErrorLine'
import { TestResultView, type TestOutcome } from './TestResultView'

export type TestState =
  { kind: 'running' } | { kind: 'done'; result: TestOutcome } | { kind: 'failed'; message: string }

/** One configured provider: what it is, where its key comes from, and what can be done with it. */
export function ProviderCard(props: {
  provider: ProviderView
  active: boolean
  test: TestState | undefined
  onTest: () => void
  onActivate: () => void
  onEdit: () => void
  onRemove: () => void
}) {
  const { t } = useI18n()
  const { provider } = props
  const [confirmRemove, setConfirmRemove] = useState(false)
  const readOnly = provider.origin === 'cli'
  const keyText =
    provider.key.kind === 'env'
      ? t('settings.keyFromEnv', { name: provider.key.name })
      : provider.key.kind === 'stored'
        ? t('settings.keyStored')
        : t('settings.keyNone')

  return (
    <li
      className={props.active ? 'provider provider-active' : 'provider'}
      data-testid="provider"
      data-provider-id={provider.provider_id}
    >
      <div className="provider-head">
        <strong className="provider-name">{provider.name}</strong>
        {props.active && <span className="badge badge-accent">{t('settings.active')}</span>}
        {readOnly && (
          <span className="badge" title={t('settings.fromCliHint')}>
            {t('settings.fromCli')}
          </span>
        )}
      </div>
      <dl className="provider-facts">
        <dt>{t('settings.kind')}</dt>
        <dd>{provider.kind === 'anthropic' ? t('settings.kindAnthropic') : t('settings.kindOpenAIShort')}</dd>
        <dt>{t('settings.baseUrl')}</dt>
        <dd className="mono">{provider.base_url === '' ? t('settings.defaultUrl') : provider.base_url}</dd>
        <dt>{t('settings.model')}</dt>
        <dd className="mono">{provider.model}</dd>
        <dt>{t('settings.key')}</dt>
        <dd>
          {keyText}
          {provider.key.kind !== 'none' && (
            <span className={provider.key_available ? 'key-ok' : 'key-missing'}>
              {' · '}
              {provider.key_available ? t('settings.keyAvailable') : t('settings.keyMissing')}
            </span>
          )}
        </dd>
      </dl>
      <div className="provider-actions">
        <button
          type="button"
          disabled={props.test?.kind === 'running'}
          onClick={props.onTest}
          data-testid="provider-test-run"
        >
          {props.test?.kind === 'running' ? t('settings.testing') : t('settings.test')}
        </button>
        {!props.active && (
          <button type="button" onClick={props.onActivate} data-testid="provider-activate">
            {t('settings.use')}
          </button>
        )}
        {!readOnly && (
          <>
            <button type="button" onClick={props.onEdit}>
              {t('settings.edit')}
            </button>
            {confirmRemove ? (
              <>
                <button type="button" className="danger" onClick={props.onRemove} data-testid="provider-remove-confirm">
                  {t('settings.removeConfirm', { name: provider.name })}
                </button>
                <button type="button" onClick={() => setConfirmRemove(false)}>
                  {t('explorer.cancel')}
                </button>
              </>
            ) : (
              <button type="button" onClick={() => setConfirmRemove(true)} data-testid="provider-remove">
                {t('settings.remove')}
              </button>
            )}
          </>
        )}
      </div>
      {props.test?.kind === 'done' && <TestResultView model={provider.model} result={props.test.result} />}
      {props.test?.kind === 'failed' && <ErrorLine message={props.test.message} />}
    </li>
  )
}

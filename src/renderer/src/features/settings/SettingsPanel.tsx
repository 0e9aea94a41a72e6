import { useCallback, useEffect, useState } from 'react'
import type { ProviderView, ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../app/client-context'
import { useI18n } from '../../i18n'
import { failureMessage } from '../../ui/outcome-message'
import { ProviderForm, type ProviderDraft } from './ProviderForm'

type Listing = ResultOf<'settings.providers'>
type TestResult = ResultOf<'settings.test_provider'>

/** Model providers (spec 05 "Providers"): list, add/edit/remove, choose the active one, test it. */
export function SettingsPanel(props: { onClose: () => void }) {
  const client = useClient()
  const { t } = useI18n()
  const [listing, setListing] = useState<Listing | null>(null)
  const [editing, setEditing] = useState<ProviderView | 'new' | null>(null)
  const [formError, setFormError] = useState<string | null>(null)
  const [tests, setTests] = useState<Record<string, TestResult | 'running' | string>>({})

  const load = useCallback(() => {
    void client.request('settings.providers', {}).then((outcome) => {
      if (outcome.kind === 'ok') setListing(outcome.result)
    })
  }, [client])
  useEffect(() => {
    load()
  }, [load])

  async function save(draft: ProviderDraft) {
    setFormError(null)
    const outcome = await client.request('settings.save_provider', draft)
    if (outcome.kind !== 'ok') {
      setFormError(failureMessage(outcome, t))
      return
    }
    setEditing(null)
    load()
  }
  async function test(providerId: string) {
    setTests((current) => ({ ...current, [providerId]: 'running' }))
    const outcome = await client.request('settings.test_provider', { provider_id: providerId }, { timeoutMs: 30_000 })
    setTests((current) => ({
      ...current,
      [providerId]: outcome.kind === 'ok' ? outcome.result : failureMessage(outcome, t),
    }))
  }
  async function act(action: 'settings.remove_provider' | 'settings.activate_provider', providerId: string) {
    await client.request(action, { provider_id: providerId })
    load()
  }

  return (
    <section className="settings" data-testid="settings" aria-label={t('settings.title')}>
      <header className="settings-header">
        <h2>{t('settings.title')}</h2>
        <button type="button" onClick={props.onClose}>
          {t('settings.close')}
        </button>
      </header>
      {editing !== null ? (
        <ProviderForm
          initial={editing === 'new' ? null : editing}
          canStoreKeys={listing?.can_store_keys ?? false}
          error={formError}
          onSave={(draft) => void save(draft)}
          onCancel={() => setEditing(null)}
        />
      ) : (
        <>
          {listing?.providers.length === 0 && <p>{t('settings.none')}</p>}
          <ul className="provider-list">
            {listing?.providers.map((provider) => {
              const result = tests[provider.provider_id]
              const active = listing.active_provider_id === provider.provider_id
              return (
                <li key={provider.provider_id} className="provider" data-testid="provider">
                  <div className="provider-head">
                    <strong>{provider.name}</strong>
                    {active && <span className="badge">{t('settings.active')}</span>}
                    {provider.origin === 'cli' && <span className="badge">{t('settings.fromCli')}</span>}
                  </div>
                  <div className="provider-meta">
                    {provider.kind} · {provider.base_url || t('settings.defaultUrl')} · {provider.model}
                  </div>
                  <div className="provider-meta">
                    {provider.key.kind === 'env'
                      ? t('settings.keyFromEnv', { name: provider.key.name })
                      : provider.key.kind === 'stored'
                        ? t('settings.keyStored')
                        : t('settings.keyNone')}
                    {provider.key.kind !== 'none' && !provider.key_available && ` — ${t('settings.keyMissing')}`}
                  </div>
                  <div className="provider-actions">
                    <button type="button" onClick={() => void test(provider.provider_id)}>
                      {t('settings.test')}
                    </button>
                    {!active && (
                      <button
                        type="button"
                        onClick={() => void act('settings.activate_provider', provider.provider_id)}
                      >
                        {t('settings.use')}
                      </button>
                    )}
                    {provider.origin === 'user' && (
                      <>
                        <button type="button" onClick={() => setEditing(provider)}>
                          {t('settings.edit')}
                        </button>
                        <button
                          type="button"
                          onClick={() => void act('settings.remove_provider', provider.provider_id)}
                        >
                          {t('settings.remove')}
                        </button>
                      </>
                    )}
                  </div>
                  {result !== undefined && (
                    <p className="provider-test" data-testid="provider-test" role="status">
                      {result === 'running'
                        ? t('settings.testing')
                        : typeof result === 'string'
                          ? result
                          : result.status === 'ok'
                            ? t(result.model_listed ? 'settings.testOk' : 'settings.testOkUnlisted', {
                                count: result.models.length,
                                models: result.models.slice(0, 8).join(', '),
                              })
                            : `${t('settings.testFailed')} ${result.message}`}
                    </p>
                  )}
                </li>
              )
            })}
          </ul>
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            {t('settings.add')}
          </button>
          {(listing?.suggestions.length ?? 0) > 0 && (
            <div className="suggestions">
              <h3>{t('settings.found')}</h3>
              {listing?.suggestions.map((suggestion) => (
                <div key={suggestion.suggestion_id} className="suggestion">
                  <span>
                    <strong>{suggestion.name}</strong> — {suggestion.reason}
                  </span>
                  <button
                    type="button"
                    onClick={() =>
                      void save({
                        kind: suggestion.kind,
                        name: suggestion.name,
                        base_url: suggestion.base_url,
                        model: suggestion.model,
                        key: suggestion.key,
                        activate: true,
                      })
                    }
                  >
                    {t('settings.addSuggestion')}
                  </button>
                </div>
              ))}
            </div>
          )}
          <div className="settings-help">
            <p>{t('settings.helpOllama')}</p>
            <p>{t('settings.helpLmStudio')}</p>
          </div>
        </>
      )}
    </section>
  )
}

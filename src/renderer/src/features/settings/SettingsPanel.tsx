import './settings.css'
import { useState } from 'react'
import type { ProviderView, ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../ui/client-context'
import { useI18n } from '../../i18n'
import { ErrorLine } from '../../ui/ErrorLine'
import { failureMessage } from '../../ui/outcome-message'
import { useAction } from '../../ui/use-action'
import { ProviderCard, type TestState } from './ProviderCard'
import { ProviderForm } from './ProviderForm'
import { ProviderHelp } from './ProviderHelp'
import { draftFrom, type ProviderDraft, type SavePayload } from './provider-draft'
import { SnapshotSetting } from './SnapshotSetting'
import { SuggestionList } from './SuggestionList'
import { useProviders } from './use-providers'

type Suggestion = ResultOf<'settings.providers'>['suggestions'][number]

interface FormState {
  readonly editing: ProviderView | null
  readonly initial: ProviderDraft
  /** Remounts the form when another provider or preset is opened. */
  readonly generation: number
}

/** Test connections ask the provider for its model list; a slow server gets time to answer. */
const TEST_TIMEOUT_MS = 30_000

/** Model providers (spec 05 "Providers"): list, add, edit, remove, choose the active one, test it. */
export function SettingsPanel(props: { onClose: () => void; onChanged?: () => void }) {
  const client = useClient()
  const { t } = useI18n()
  const providers = useProviders()
  const listing = providers.listing
  const [form, setForm] = useState<FormState | null>(null)
  /** Saving the form; its failure shows inside the form. */
  const formAction = useAction()
  /** Adding a suggestion, activating or removing a provider; one line above the list. */
  const listAction = useAction()
  const saving = formAction.busy || listAction.busy
  const [tests, setTests] = useState<ReadonlyMap<string, TestState>>(new Map())
  const noneActive = listing?.active_provider_id === null

  const changed = () => {
    void providers.reload()
    props.onChanged?.()
  }
  function openForm(editing: ProviderView | null, initial: ProviderDraft) {
    formAction.clear()
    setForm((f) => ({ editing, initial, generation: (f?.generation ?? 0) + 1 }))
  }

  async function save(payload: SavePayload) {
    const outcome = await formAction.run((signal) => client.request('settings.save_provider', payload, { signal }))
    if (outcome.kind !== 'ok') return
    setForm(null)
    changed()
  }
  async function addSuggestion(suggestion: Suggestion) {
    await listAction.run((signal) =>
      client.request(
        'settings.save_provider',
        {
          kind: suggestion.kind,
          name: suggestion.name,
          base_url: suggestion.base_url,
          model: suggestion.model,
          key: suggestion.key,
          ...(noneActive ? { activate: true } : {}),
        },
        { signal },
      ),
    )
    changed()
  }
  async function test(providerId: string) {
    setTests((m) => new Map(m).set(providerId, { kind: 'running' }))
    const outcome = await client.request(
      'settings.test_provider',
      { provider_id: providerId },
      { timeoutMs: TEST_TIMEOUT_MS },
    )
    const next: TestState =
      outcome.kind === 'ok'
        ? { kind: 'done', result: outcome.result }
        : { kind: 'failed', message: failureMessage(outcome, t) }
    setTests((m) => new Map(m).set(providerId, next))
  }
  async function activate(providerId: string) {
    await listAction.run((signal) =>
      client.request('settings.activate_provider', { provider_id: providerId }, { signal }),
    )
    changed()
  }
  async function remove(providerId: string) {
    await listAction.run((signal) =>
      client.request('settings.remove_provider', { provider_id: providerId }, { signal }),
    )
    changed()
  }

  return (
    <section className="settings" data-testid="settings" aria-label={t('settings.title')}>
      <header className="settings-header">
        <h2>{t('settings.title')}</h2>
        <button type="button" onClick={props.onClose} data-testid="settings-close">
          {t('settings.close')}
        </button>
      </header>
      <div className="settings-body">
        {form !== null ? (
          <ProviderForm
            key={form.generation}
            initial={form.initial}
            editing={form.editing}
            canStoreKeys={listing?.can_store_keys ?? false}
            error={formAction.error}
            saving={saving}
            onSave={(payload) => void save(payload)}
            onCancel={() => setForm(null)}
          />
        ) : (
          <>
            {providers.failure !== null && providers.failure.kind !== 'cancelled' && (
              <ErrorLine message={t('settings.loadFailed', { message: failureMessage(providers.failure, t) })} />
            )}
            <ErrorLine message={listAction.error} />
            <section className="settings-section">
              <h3>{t('settings.providers')}</h3>
              {listing === null && providers.failure === null && (
                <p className="settings-note">{t('explorer.loading')}</p>
              )}
              {listing?.providers.length === 0 && <p className="settings-note">{t('settings.none')}</p>}
              {listing !== null && listing.providers.length > 0 && (
                <ul className="provider-list">
                  {listing.providers.map((provider) => (
                    <ProviderCard
                      key={provider.provider_id}
                      provider={provider}
                      active={listing.active_provider_id === provider.provider_id}
                      test={tests.get(provider.provider_id)}
                      onTest={() => void test(provider.provider_id)}
                      onActivate={() => void activate(provider.provider_id)}
                      onEdit={() => openForm(provider, draftFrom(provider, false))}
                      onRemove={() => void remove(provider.provider_id)}
                    />
                  ))}
                </ul>
              )}
              <button
                type="button"
                className="primary"
                onClick={() => openForm(null, draftFrom(null, noneActive))}
                data-testid="provider-add"
              >
                {t('settings.add')}
              </button>
            </section>
            <SuggestionList
              suggestions={listing?.suggestions ?? []}
              busy={saving}
              onAdd={(suggestion) => void addSuggestion(suggestion)}
            />
            <ProviderHelp
              onUse={(preset) =>
                openForm(null, {
                  ...draftFrom(null, noneActive),
                  name: preset.name,
                  baseUrl: preset.baseUrl,
                })
              }
            />
            <SnapshotSetting />
          </>
        )}
      </div>
    </section>
  )
}

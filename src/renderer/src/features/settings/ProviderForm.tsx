import { useState, type FormEvent } from 'react'
import type { PayloadOf, ProviderKind, ProviderView } from '../../../../shared/protocol'
import { useI18n } from '../../i18n'

type KeyChoice = 'none' | 'env' | 'stored'
export type ProviderDraft = PayloadOf<'settings.save_provider'>

/** Add or edit one provider. A stored key is sent once and never shown again. */
export function ProviderForm(props: {
  initial: ProviderView | null
  canStoreKeys: boolean
  error: string | null
  onSave: (draft: ProviderDraft) => void
  onCancel: () => void
}) {
  const { t } = useI18n()
  const initial = props.initial
  const [kind, setKind] = useState<ProviderKind>(initial?.kind ?? 'openai-compatible')
  const [name, setName] = useState(initial?.name ?? '')
  const [baseUrl, setBaseUrl] = useState(initial?.base_url ?? '')
  const [model, setModel] = useState(initial?.model ?? '')
  const [keyChoice, setKeyChoice] = useState<KeyChoice>(initial?.key.kind ?? 'none')
  const [envName, setEnvName] = useState(initial?.key.kind === 'env' ? initial.key.name : '')
  const [apiKey, setApiKey] = useState('')

  function submit(event: FormEvent) {
    event.preventDefault()
    const key =
      keyChoice === 'env'
        ? { kind: 'env' as const, name: envName.trim() }
        : keyChoice === 'stored'
          ? { kind: 'stored' as const }
          : { kind: 'none' as const }
    props.onSave({
      ...(initial ? { provider_id: initial.provider_id } : {}),
      kind,
      name: name.trim() || (kind === 'anthropic' ? 'Anthropic' : 'OpenAI-compatible'),
      base_url: baseUrl.trim(),
      model: model.trim(),
      key,
      ...(keyChoice === 'stored' && apiKey !== '' ? { api_key: apiKey } : {}),
    })
  }

  return (
    <form className="provider-form" onSubmit={submit} data-testid="provider-form">
      <label>
        <span>{t('settings.kind')}</span>
        <select value={kind} onChange={(event) => setKind(event.target.value as ProviderKind)}>
          <option value="openai-compatible">{t('settings.kindOpenAI')}</option>
          <option value="anthropic">Anthropic</option>
        </select>
      </label>
      <label>
        <span>{t('settings.name')}</span>
        <input value={name} onChange={(event) => setName(event.target.value)} />
      </label>
      <label>
        <span>{t('settings.baseUrl')}</span>
        <input
          value={baseUrl}
          placeholder={kind === 'anthropic' ? 'https://api.anthropic.com/v1' : 'https://api.openai.com/v1'}
          onChange={(event) => setBaseUrl(event.target.value)}
        />
      </label>
      <label>
        <span>{t('settings.model')}</span>
        <input value={model} required onChange={(event) => setModel(event.target.value)} />
      </label>
      <label>
        <span>{t('settings.key')}</span>
        <select value={keyChoice} onChange={(event) => setKeyChoice(event.target.value as KeyChoice)}>
          <option value="none">{t('settings.keyNone')}</option>
          <option value="env">{t('settings.keyEnv')}</option>
          {props.canStoreKeys && <option value="stored">{t('settings.keyStored')}</option>}
        </select>
      </label>
      {keyChoice === 'env' && (
        <label>
          <span>{t('settings.envName')}</span>
          <input
            value={envName}
            required
            placeholder="OPENAI_API_KEY"
            onChange={(event) => setEnvName(event.target.value)}
          />
        </label>
      )}
      {keyChoice === 'stored' && (
        <label>
          <span>{t('settings.apiKey')}</span>
          <input
            type="password"
            autoComplete="off"
            value={apiKey}
            placeholder={initial?.key.kind === 'stored' ? t('settings.keyKept') : ''}
            onChange={(event) => setApiKey(event.target.value)}
          />
        </label>
      )}
      {!props.canStoreKeys && <p className="settings-note">{t('settings.browserKeys')}</p>}
      {props.error && <p role="alert">{props.error}</p>}
      <div className="provider-form-actions">
        <button type="submit" className="primary">
          {t('settings.save')}
        </button>
        <button type="button" onClick={props.onCancel}>
          {t('explorer.cancel')}
        </button>
      </div>
    </form>
  )
}

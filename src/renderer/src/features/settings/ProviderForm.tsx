import { useId, useState, type FormEvent } from 'react'
import { ProviderKind, type ProviderView } from '../../../../shared/protocol'
import { useI18n, type MessageKey } from '../../i18n'
import { ErrorLine } from '../../ui/ErrorLine'
import { DEFAULT_BASE_URLS, savePayload, type KeyChoice, type ProviderDraft, type SavePayload } from './provider-draft'

const KIND_LABEL: Record<ProviderKind, MessageKey> = {
  'openai-compatible': 'settings.kindOpenAIShort',
  anthropic: 'settings.kindAnthropic',
}

/** Add or edit one provider. A stored key is sent once, encrypted by the desktop shell, never shown again. */
export function ProviderForm(props: {
  initial: ProviderDraft
  editing: ProviderView | null
  canStoreKeys: boolean
  error: string | null
  saving: boolean
  onSave: (payload: SavePayload) => void
  onCancel: () => void
}) {
  const { t } = useI18n()
  const id = useId()
  const [draft, setDraft] = useState<ProviderDraft>(props.initial)
  const [problem, setProblem] = useState<MessageKey | null>(null)
  const set = <K extends keyof ProviderDraft>(field: K, value: ProviderDraft[K]) => {
    setDraft((d) => ({ ...d, [field]: value }))
    setProblem(null)
  }
  const keyChoices: KeyChoice[] =
    props.canStoreKeys || draft.keyChoice === 'stored' ? ['none', 'env', 'stored'] : ['none', 'env']

  function submit(event: FormEvent) {
    event.preventDefault()
    const result = savePayload(draft, props.editing)
    if (result.ok) props.onSave(result.payload)
    else setProblem(result.problem)
  }

  return (
    <form className="provider-form" onSubmit={submit} data-testid="provider-form" noValidate>
      <h3>{props.editing ? t('settings.editTitle', { name: props.editing.name }) : t('settings.addTitle')}</h3>
      <label className="form-field">
        <span>{t('settings.kind')}</span>
        <select
          value={draft.kind}
          onChange={(event) => {
            const kind = ProviderKind.safeParse(event.target.value)
            if (kind.success) set('kind', kind.data)
          }}
          data-testid="provider-kind"
        >
          {ProviderKind.options.map((kind) => (
            <option key={kind} value={kind}>
              {t(KIND_LABEL[kind])}
            </option>
          ))}
        </select>
        {draft.kind === 'openai-compatible' && <small>{t('settings.kindOpenAIHint')}</small>}
      </label>
      <label className="form-field">
        <span>{t('settings.name')}</span>
        <input value={draft.name} maxLength={200} onChange={(event) => set('name', event.target.value)} />
      </label>
      <label className="form-field">
        <span>{t('settings.baseUrl')}</span>
        <input
          value={draft.baseUrl}
          spellCheck={false}
          placeholder={DEFAULT_BASE_URLS[draft.kind]}
          onChange={(event) => set('baseUrl', event.target.value)}
          data-testid="provider-base-url"
        />
        <small>{t('settings.baseUrlHint')}</small>
      </label>
      <label className="form-field">
        <span>{t('settings.model')}</span>
        <input
          value={draft.model}
          spellCheck={false}
          required
          onChange={(event) => set('model', event.target.value)}
          data-testid="provider-model"
        />
      </label>
      <fieldset className="form-field key-choice">
        <legend>{t('settings.key')}</legend>
        {keyChoices.map((choice) => (
          <label key={choice} className="radio">
            <input
              type="radio"
              name={`${id}-key`}
              value={choice}
              checked={draft.keyChoice === choice}
              disabled={choice === 'stored' && !props.canStoreKeys}
              onChange={() => set('keyChoice', choice)}
            />
            {t(
              choice === 'none'
                ? 'settings.keyNone'
                : choice === 'env'
                  ? 'settings.keyEnv'
                  : 'settings.keyStoredChoice',
            )}
          </label>
        ))}
      </fieldset>
      {draft.keyChoice === 'env' && (
        <label className="form-field">
          <span>{t('settings.envName')}</span>
          <input
            value={draft.envName}
            spellCheck={false}
            placeholder={draft.kind === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY'}
            onChange={(event) => set('envName', event.target.value)}
            data-testid="provider-env-name"
          />
        </label>
      )}
      {draft.keyChoice === 'stored' && props.canStoreKeys && (
        <label className="form-field">
          <span>{t('settings.apiKey')}</span>
          <input
            type="password"
            autoComplete="off"
            value={draft.apiKey}
            placeholder={props.editing?.key.kind === 'stored' ? t('settings.keyKept') : ''}
            onChange={(event) => set('apiKey', event.target.value)}
            data-testid="provider-api-key"
          />
        </label>
      )}
      {!props.canStoreKeys && <p className="settings-note">{t('settings.browserKeys')}</p>}
      {!props.editing && (
        <label className="radio">
          <input type="checkbox" checked={draft.activate} onChange={(event) => set('activate', event.target.checked)} />
          {t('settings.activateOnSave')}
        </label>
      )}
      <ErrorLine message={problem !== null ? t(problem) : props.error} />
      <div className="form-buttons">
        <button type="submit" className="primary" disabled={props.saving} data-testid="provider-save">
          {t('settings.save')}
        </button>
        <button type="button" onClick={props.onCancel}>
          {t('explorer.cancel')}
        </button>
      </div>
    </form>
  )
}

import type { ResultOf } from '../../../../shared/protocol'
import { useI18n } from '../../i18n'

type Suggestion = ResultOf<'settings.providers'>['suggestions'][number]

/** First-run offers found on this machine (keys in the environment, a local Ollama). */
export function SuggestionList(props: {
  suggestions: readonly Suggestion[]
  busy: boolean
  onAdd: (suggestion: Suggestion) => void
}) {
  const { t } = useI18n()
  if (props.suggestions.length === 0) return null
  return (
    <section className="settings-section">
      <h3>{t('settings.found')}</h3>
      <ul className="suggestions">
        {props.suggestions.map((suggestion) => (
          <li key={suggestion.suggestion_id} className="suggestion" data-testid="provider-suggestion">
            <div className="suggestion-text">
              <strong>{suggestion.name}</strong>
              <span>{suggestion.reason}</span>
              <span className="mono">
                {suggestion.base_url} · {suggestion.model}
              </span>
            </div>
            <button type="button" disabled={props.busy} onClick={() => props.onAdd(suggestion)}>
              {t('settings.addSuggestion')}
            </button>
          </li>
        ))}
      </ul>
    </section>
  )
}

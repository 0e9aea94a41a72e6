import { useI18n } from '../../i18n'
import { LOCAL_PRESETS } from './provider-draft'

export type LocalPreset = (typeof LOCAL_PRESETS)[number]

/** The exact settings for local model servers, each one click from a filled-in form. */
export function ProviderHelp(props: { onUse: (preset: LocalPreset) => void }) {
  const { t } = useI18n()
  return (
    <section className="settings-section settings-help">
      <h3>{t('settings.localTitle')}</h3>
      <ul className="local-presets">
        {LOCAL_PRESETS.map((preset) => (
          <li key={preset.id}>
            <p>{t(preset.help)}</p>
            <button type="button" className="link-button" onClick={() => props.onUse(preset)}>
              {t('settings.usePreset', { name: preset.name })}
            </button>
          </li>
        ))}
      </ul>
    </section>
  )
}

import { useEffect, useState } from 'react'
import type { ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../ui/client-context'
import { useI18n } from '../../i18n'

/** Spec 06 `snapshot: false`: whether steps record what commands change. */
export function SnapshotSetting() {
  const client = useClient()
  const { t } = useI18n()
  const [state, setState] = useState<ResultOf<'settings.snapshots'> | null>(null)

  useEffect(() => {
    let live = true
    void client.request('settings.snapshots', {}).then((outcome) => {
      if (live && outcome.kind === 'ok') setState(outcome.result)
    })
    return () => {
      live = false
    }
  }, [client])

  async function toggle(enabled: boolean) {
    const outcome = await client.request('settings.snapshots', { enabled })
    if (outcome.kind === 'ok') setState(outcome.result)
  }

  if (state === null) return null
  return (
    <section className="settings-section">
      <h3>{t('settings.snapshots')}</h3>
      <label className="settings-toggle">
        <input
          type="checkbox"
          data-testid="settings-snapshots"
          checked={state.enabled}
          disabled={!state.available}
          onChange={(event) => void toggle(event.target.checked)}
        />
        {t('settings.snapshotsLabel')}
      </label>
      {!state.available && <p className="settings-note">{t('settings.snapshotsOff')}</p>}
    </section>
  )
}

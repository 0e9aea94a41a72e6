import { useEffect, useState } from 'react'
import { createPortal } from 'react-dom'
import { useI18n } from '../../../../i18n'
import { Alert } from '../../../../ui/Alert'
import type { EngineState } from './onlyoffice-host'
import type { EngineSlot } from './OfficeView'

/**
 * The loading overlay, errors and Retry over the ONLYOFFICE frame. The frame itself lives in the
 * adapter's slot (see `OnlyOfficeHost`); this only draws on top of it, through a portal, so it
 * can come and go without touching the iframe.
 */
export function OnlyOfficePane(props: { engine: EngineSlot; onRetry: () => void }) {
  const { t } = useI18n()
  const { slot } = props.engine
  // The host is created by the view's effect right after this first render: it starts loading.
  const [state, setState] = useState<EngineState>(() => props.engine.host?.current ?? { kind: 'loading-engine' })
  useEffect(() => {
    const listener = (event: Event) => setState((event as CustomEvent<EngineState>).detail)
    slot.addEventListener('office-engine-state', listener)
    return () => slot.removeEventListener('office-engine-state', listener)
  }, [slot])
  if (state.kind === 'ready') return null
  return createPortal(
    <div className="office-engine-overlay" data-testid="office-engine-overlay">
      {state.kind === 'failed' ? (
        <Alert as="div" className="office-engine-status">
          <p>{t('office.engine.failed', { message: state.message })}</p>
          <button type="button" onClick={props.onRetry}>
            {t('office.retry')}
          </button>
        </Alert>
      ) : (
        <p role="status" className="office-engine-status">
          {state.kind === 'loading-engine' ? t('office.engine.loading') : t('office.engine.opening')}
        </p>
      )}
    </div>,
    slot,
  )
}

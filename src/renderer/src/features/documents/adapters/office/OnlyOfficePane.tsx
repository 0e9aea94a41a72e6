import { useEffect, useState } from 'react'
import { createPortal } from 'react-dom'
import { useI18n } from '../../../../i18n'
import type { EngineState, OnlyOfficeHost } from './onlyoffice-host'

/**
 * The loading overlay, errors and Retry over the ONLYOFFICE frame. The frame itself lives in the
 * adapter's slot (see `OnlyOfficeHost`); this only draws on top of it, through a portal, so it
 * can come and go without touching the iframe.
 */
export function OnlyOfficePane(props: { host: OnlyOfficeHost; slot: HTMLElement; onRetry: () => void }) {
  const { t } = useI18n()
  const [state, setState] = useState<EngineState>(props.host.current)
  useEffect(() => {
    const listener = (event: Event) => setState((event as CustomEvent<EngineState>).detail)
    props.slot.addEventListener('office-engine-state', listener)
    return () => props.slot.removeEventListener('office-engine-state', listener)
  }, [props.host, props.slot])
  if (state.kind === 'ready') return null
  return createPortal(
    <div className="office-engine-overlay" data-testid="office-engine-overlay">
      {state.kind === 'failed' ? (
        <div role="alert" className="office-engine-status">
          <p>{t('office.engine.failed', { message: state.message })}</p>
          <button type="button" onClick={props.onRetry}>
            {t('office.retry')}
          </button>
        </div>
      ) : (
        <p role="status" className="office-engine-status">
          {state.kind === 'loading-engine' ? t('office.engine.loading') : t('office.engine.opening')}
        </p>
      )}
    </div>,
    props.slot,
  )
}

import { useCallback, useEffect, useMemo, useState } from 'react'
import { useClient } from '../../../../ui/client-context'
import { officeServices } from '../../office-services'
import { PackOffer } from './PackOffer'
import type { OfficeStatus } from './services'

/**
 * The LibreOffice pack offer outside an Office tab (Review's "Pages" of a document version when
 * no engine can draw them): the same offer, progress and licence text as the Office view's, shown
 * only while the engine offers the pack. `onInstalled`: the caller asks for its pages again.
 */
export function PagesPackOffer(props: { projectId: string; path: string; onInstalled: () => void }) {
  const client = useClient()
  const { projectId, path, onInstalled } = props
  const services = useMemo(() => officeServices(client, projectId, path, () => undefined), [client, projectId, path])
  const [status, setStatus] = useState<OfficeStatus | null>(null)
  useEffect(() => {
    const controller = new AbortController()
    void services.status(controller.signal).then((outcome) => {
      if (!controller.signal.aborted && outcome.kind === 'ok') setStatus(outcome.result)
    })
    return () => controller.abort()
  }, [services])
  const installed = useCallback(() => {
    setStatus(null)
    onInstalled()
  }, [onInstalled])
  return status ? <PackOffer services={services} pack={status.pack} onInstalled={installed} /> : null
}

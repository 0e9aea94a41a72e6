import { useEffect, useState } from 'react'
import { formatBytes, useI18n } from '../../../../i18n'
import { ErrorLine } from '../../../../ui/ErrorLine'
import type { OfficeServices, OfficeStatus } from './services'

type PackInstall =
  | { kind: 'idle' }
  | { kind: 'running'; phase: string; received: number; total: number }
  | { kind: 'failed'; message: string }

/**
 * The LibreOffice WebAssembly pack offer (issue 27): shown by the Office view while this machine
 * has no LibreOffice and the pack is not installed. It says what the download costs (bytes, disk,
 * licence) and that documents stay on the machine, and installs only on the person's Install —
 * "Not now" closes it for this document. Progress shows the real byte counts the engine reports.
 */
export function PackOffer(props: {
  services: OfficeServices
  pack: OfficeStatus['pack']
  /** Called once the pack is installed: the view re-reads `office.status` and offers pages. */
  onInstalled: () => void
}) {
  const { t } = useI18n()
  const { services, pack, onInstalled } = props
  const [closed, setClosed] = useState(false)
  const [install, setInstall] = useState<PackInstall>(
    pack.install_id ? { kind: 'running', phase: 'download', received: 0, total: pack.size ?? 0 } : { kind: 'idle' },
  )

  useEffect(() => {
    if (install.kind !== 'running') return
    return services.onPackProgress((progress) => {
      if (progress.phase === 'done') {
        setInstall({ kind: 'idle' })
        onInstalled()
      } else if (progress.phase === 'failed') {
        setInstall({ kind: 'failed', message: progress.error?.message ?? progress.error?.code ?? '' })
      } else {
        setInstall({
          kind: 'running',
          phase: progress.phase,
          received: progress.received_bytes,
          total: progress.total_bytes,
        })
      }
    })
  }, [services, install.kind, onInstalled])

  if (closed || !pack.offered) return null

  const start = async () => {
    setInstall({ kind: 'running', phase: 'download', received: 0, total: pack.size ?? 0 })
    const outcome = await services.installPack()
    if (outcome.kind === 'error') setInstall({ kind: 'failed', message: outcome.message })
    else if (outcome.result.state === 'installed') {
      setInstall({ kind: 'idle' })
      onInstalled()
    } else if (outcome.result.state === 'failed') {
      setInstall({ kind: 'failed', message: outcome.result.error?.message ?? '' })
    }
  }

  return (
    <section className="office-offer" role="dialog" aria-labelledby="office-pack-title" data-testid="office-pack-offer">
      <h3 id="office-pack-title">{t('office.pack.title')}</h3>
      <p>
        {t('office.pack.body', {
          size: pack.size ? formatBytes(pack.size) : '?',
          disk: pack.unpacked_size ? formatBytes(pack.unpacked_size) : '?',
          licence: pack.licence ?? 'MPL-2.0',
        })}
      </p>
      <p>{t('office.pack.local')}</p>
      {install.kind === 'running' && (
        <p role="status" data-testid="office-pack-progress">
          {install.phase === 'download'
            ? t('office.offer.progress', { received: formatBytes(install.received), total: formatBytes(install.total) })
            : t('office.pack.unpacking')}
        </p>
      )}
      {install.kind === 'failed' && (
        <ErrorLine className="viewer-error" message={t('office.offer.failed', { message: install.message })} />
      )}
      <div className="office-offer-actions">
        <button type="button" onClick={() => void start()} disabled={install.kind === 'running'}>
          {install.kind === 'failed' ? t('office.retry') : t('office.offer.install')}
        </button>
        <button type="button" onClick={() => setClosed(true)} disabled={install.kind === 'running'}>
          {t('office.pack.notNow')}
        </button>
      </div>
    </section>
  )
}

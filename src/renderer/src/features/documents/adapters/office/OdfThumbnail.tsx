import { useEffect, useState } from 'react'
import { openPackage } from '../../../../../../shared/office'
import { useI18n } from '../../../../i18n'

/**
 * Without LibreOffice, an ODF document's own first-page thumbnail (every ODF writer stores one in
 * `Thumbnails/thumbnail.png`) is the only honest picture of it: shown, labelled approximate.
 */
export function OdfThumbnail(props: { bytes: Uint8Array }) {
  const { t } = useI18n()
  const [url, setUrl] = useState<string | null | undefined>(undefined)
  useEffect(() => {
    let created: string | null = null
    let cancelled = false
    void (async () => {
      try {
        const pkg = await openPackage(props.bytes)
        if (!pkg.has('Thumbnails/thumbnail.png')) throw new Error('no thumbnail')
        const png = await pkg.bytes('Thumbnails/thumbnail.png')
        if (cancelled) return
        created = URL.createObjectURL(new Blob([png as Uint8Array<ArrayBuffer>], { type: 'image/png' }))
        setUrl(created)
      } catch {
        if (!cancelled) setUrl(null)
      }
    })()
    return () => {
      cancelled = true
      if (created) URL.revokeObjectURL(created)
    }
  }, [props.bytes])
  if (url === undefined) return <p className="viewer-note">{t('office.reading')}</p>
  if (url === null) return <p className="viewer-note">{t('office.noBuiltinPreview')}</p>
  return (
    <figure className="office-thumbnail">
      <figcaption>
        <span className="badge">{t('office.approximate')}</span> {t('office.thumbnailNote')}
      </figcaption>
      <img src={url} alt={t('office.thumbnailAlt')} />
    </figure>
  )
}

import { useState } from 'react'
import { formatBytes, useI18n, type Translate } from '../../i18n'
import { Icon } from '../../ui/Icon'
import { ErrorLine } from '../../ui/ErrorLine'

/**
 * The explicit state for a file no adapter shows (unsupported type, over a limit, bytes not
 * reachable): what it is, why, and a way on — Download and Reveal. Never a blank pane (spec 09).
 */
export function Unsupported(props: {
  path: string
  mime: string
  size: number
  reason: string
  /**
   * What the heading says when the type has a viewer that could not open this file (a damaged
   * PDF): "Cannot preview this file yet" would promise a viewer still to come.
   */
  title?: string | undefined
  /** Absent while the bytes cannot be fetched (the button then says why it is disabled). */
  onDownload?: (() => Promise<Blob | null>) | undefined
  downloadUnavailable?: string | undefined
  onReveal?: (() => void) | undefined
}) {
  const { t } = useI18n()
  const [failed, setFailed] = useState(false)
  const download = async () => {
    const blob = await props.onDownload?.()
    if (!blob) {
      setFailed(true)
      return
    }
    const url = URL.createObjectURL(blob)
    const anchor = document.createElement('a')
    anchor.href = url
    anchor.download = props.path.slice(props.path.lastIndexOf('/') + 1)
    anchor.click()
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
  }
  return (
    <div className="cannot-preview" data-testid="cannot-preview">
      <Icon name="file-binary" className="cannot-preview-icon" />
      <h3>{props.title ?? t('viewer.cannotPreview')}</h3>
      <p className="cannot-preview-detail">
        {t('viewer.binaryDetail', { mime: props.mime, size: describeSize(props.size, t) })}
      </p>
      {props.reason && <p>{props.reason}</p>}
      <div className="cannot-preview-actions">
        <button
          type="button"
          disabled={!props.onDownload}
          title={props.onDownload ? undefined : props.downloadUnavailable}
          onClick={() => void download()}
          data-testid="document-download"
        >
          <Icon name="desktop-download" /> {t('viewer.download')}
        </button>
        {props.onReveal && (
          <button type="button" onClick={props.onReveal} data-testid="document-reveal">
            <Icon name="list-tree" /> {t('viewer.reveal')}
          </button>
        )}
      </div>
      {!props.onDownload && props.downloadUnavailable && <p className="viewer-note">{props.downloadUnavailable}</p>}
      {failed && <ErrorLine className="viewer-note" message={t('viewer.downloadFailed')} />}
    </div>
  )
}

/** Rounded units alone can hide why a file is over a limit ("64 MiB" vs a 64 MiB limit). */
function describeSize(bytes: number, t: Translate): string {
  return bytes < 1024
    ? formatBytes(bytes)
    : t('viewer.exactSize', { rounded: formatBytes(bytes), bytes: bytes.toLocaleString('en-US') })
}

import { formatBytes, useI18n, type Translate } from '../../i18n'

/** The explicit state for files no adapter shows yet: what it is and how big, never a blank pane. */
export function CannotPreview(props: { mime: string; size: number; reason: string }) {
  const { t } = useI18n()
  return (
    <div className="cannot-preview" data-testid="cannot-preview">
      <h3>{t('viewer.cannotPreview')}</h3>
      <p className="cannot-preview-detail">
        {t('viewer.binaryDetail', { mime: props.mime, size: describeSize(props.size, t) })}
      </p>
      <p>{props.reason}</p>
    </div>
  )
}

/** Rounded units alone can hide why a file is over a limit ("64 MiB" vs a 64 MiB limit). */
function describeSize(bytes: number, t: Translate): string {
  return bytes < 1024
    ? formatBytes(bytes)
    : t('viewer.exactSize', { rounded: formatBytes(bytes), bytes: bytes.toLocaleString('en-US') })
}

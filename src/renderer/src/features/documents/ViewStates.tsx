import { formatBytes, useI18n } from '../../i18n'
import { Unsupported } from './Unsupported'
import type { DocumentView } from './working-copy/document-view'
import { ErrorLine } from '../../ui/ErrorLine'
import { protocolErrorMessage } from '../../ui/outcome-message'

/**
 * A file tab's body when no adapter shows the file: loading, no adapter for the type, over the read
 * limit, gone from disk, or a read that failed — each an explicit state, never a blank pane.
 */
export function ViewStates(props: {
  path: string
  view: Exclude<DocumentView, { kind: 'shown' }>
  onDownload: () => Promise<Blob | null>
  onReveal: () => void
}) {
  const { t } = useI18n()
  const { view, path } = props
  switch (view.kind) {
    case 'loading':
      return <p className="viewer-note">{t('viewer.loading', { path })}</p>
    case 'unsupported':
      return (
        <Unsupported
          path={path}
          mime={view.file.kind === 'binary' ? view.file.mime : 'text/plain'}
          size={view.file.size}
          reason={
            view.bytes?.kind === 'unavailable' && view.bytes.reason === 'failed'
              ? t('viewer.bytesFailed')
              : t('viewer.binary')
          }
          onDownload={props.onDownload}
          onReveal={props.onReveal}
        />
      )
    case 'gone':
      return (
        <p className="viewer-note" role="status">
          {t('viewer.gone', { path })}
        </p>
      )
    case 'failed': {
      const { outcome } = view
      if (outcome.kind === 'error' && outcome.error.code === 'TOO_LARGE') {
        const details = outcome.error.details ?? {}
        return (
          <Unsupported
            path={path}
            mime={typeof details.mime === 'string' ? details.mime : 'application/octet-stream'}
            size={typeof details.size === 'number' ? details.size : 0}
            reason={t('viewer.tooLarge', { limit: formatBytes(typeof details.limit === 'number' ? details.limit : 0) })}
            onDownload={props.onDownload}
            onReveal={props.onReveal}
          />
        )
      }
      const message =
        outcome.kind === 'error'
          ? t('viewer.failed', { path, message: protocolErrorMessage(outcome.error, t) })
          : outcome.kind === 'timeout'
            ? t('viewer.timeout', { path })
            : t('viewer.failed', { path, message: t('error.disconnected') })
      return <ErrorLine className="viewer-note viewer-error" message={message} />
    }
  }
}

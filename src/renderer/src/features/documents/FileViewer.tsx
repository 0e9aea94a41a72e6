import { lazy, Suspense, useEffect, useState } from 'react'
import type { FileRead } from '../../../../shared/protocol'
import { useClient } from '../../app/client-context'
import { formatBytes, useI18n } from '../../i18n'
import type { RequestOutcome } from '../../transport'
import { CannotPreview } from './CannotPreview'

// Monaco is large: it loads only when a text file is first opened (spec 12 "on demand").
const TextView = lazy(() => import('./adapters/text/TextView'))

type ViewState =
  | { kind: 'loading' }
  | { kind: 'loaded'; file: FileRead }
  | { kind: 'failed'; outcome: Exclude<RequestOutcome<unknown>, { kind: 'ok' }> }

/** Render with `key={path}` so a new file starts from the loading state. */
export function FileViewer(props: { projectId: string; path: string }) {
  const client = useClient()
  const { t } = useI18n()
  const [state, setState] = useState<ViewState>({ kind: 'loading' })
  // Bumped when a committed change touched this file (or an unknown set of files, as a restore
  // reports): the view re-reads it rather than showing bytes that are no longer on disk.
  const [diskVersion, setDiskVersion] = useState(0)

  useEffect(
    () =>
      client.onEvent((frame) => {
        if (frame.event !== 'workspace.changed') return
        const paths = (frame.data as { paths?: unknown }).paths
        if (!Array.isArray(paths) || paths.length === 0 || paths.includes(props.path)) setDiskVersion((v) => v + 1)
      }),
    [client, props.path],
  )

  useEffect(() => {
    const controller = new AbortController()
    void client
      .request(
        'files.read',
        { path: props.path },
        { owner: { project_id: props.projectId }, signal: controller.signal },
      )
      .then((outcome) => {
        if (controller.signal.aborted || outcome.kind === 'cancelled') return
        setState(outcome.kind === 'ok' ? { kind: 'loaded', file: outcome.result } : { kind: 'failed', outcome })
      })
    return () => controller.abort()
  }, [client, props.projectId, props.path, diskVersion])

  const header = (
    <header className="viewer-header">
      <span className="viewer-path">{props.path}</span>
      {state.kind === 'loaded' && state.file.kind === 'text' && <span className="badge">{t('viewer.readOnly')}</span>}
    </header>
  )

  let body
  if (state.kind === 'loading') {
    body = <p className="viewer-note">{t('viewer.loading', { path: props.path })}</p>
  } else if (state.kind === 'loaded') {
    body =
      state.file.kind === 'text' ? (
        <Suspense fallback={<p className="viewer-note">{t('viewer.loading', { path: props.path })}</p>}>
          <TextView path={props.path} text={state.file.text} />
        </Suspense>
      ) : (
        <CannotPreview mime={state.file.mime} size={state.file.size} reason={t('viewer.binary')} />
      )
  } else if (state.outcome.kind === 'error' && state.outcome.error.code === 'TOO_LARGE') {
    const details = state.outcome.error.details ?? {}
    body = (
      <CannotPreview
        mime={typeof details.mime === 'string' ? details.mime : 'application/octet-stream'}
        size={typeof details.size === 'number' ? details.size : 0}
        reason={t('viewer.tooLarge', { limit: formatBytes(typeof details.limit === 'number' ? details.limit : 0) })}
      />
    )
  } else {
    const message =
      state.outcome.kind === 'error'
        ? t('viewer.failed', { path: props.path, message: state.outcome.error.message })
        : state.outcome.kind === 'timeout'
          ? t('viewer.timeout', { path: props.path })
          : t('viewer.failed', { path: props.path, message: t('error.disconnected') })
    body = (
      <p className="viewer-note viewer-error" role="alert">
        {message}
      </p>
    )
  }

  return (
    <section className="viewer" aria-label={props.path}>
      {header}
      <div className="viewer-body">{body}</div>
    </section>
  )
}

import { useCallback, useEffect, useState } from 'react'
import type { FileVersion, ResultOf } from '../../../../shared/protocol'
import { useClient } from '../../ui/client-context'
import { formatBytes, useI18n, type MessageKey, type Translate } from '../../i18n'
import { ErrorLine } from '../../ui/ErrorLine'
import { Icon } from '../../ui/Icon'
import { failureMessage, protocolErrorMessage, type FailedOutcome } from '../../ui/outcome-message'
import { changedPaths, onProjectEvent } from '../../ui/project-events'
import { resolveAdapter } from './adapters/registry'
import type { DocumentContent, DocumentAdapterEntry } from './adapters/types'
import { Compare } from './Compare'
import { DocumentHost } from './DocumentHost'

const SOURCE_LABEL: Record<FileVersion['source'], MessageKey> = {
  original: 'history.source.original',
  edit: 'history.source.edit',
  restore: 'history.source.restore',
  undo: 'history.source.undo',
  operation: 'history.source.operation',
  outside: 'history.source.outside',
}

/**
 * Who made a version and what it is, in a person's words (issue 25): "You edited — 3 saves",
 * "Agent · turn 4"; the other kinds say what happened ("Restored from History"…).
 */
function versionLabel(version: FileVersion, t: Translate): string {
  if (version.source === 'edit' && version.actor === 'agent')
    return version.turn_number !== undefined
      ? t('history.agentTurn', { number: version.turn_number })
      : t('history.agent')
  if (version.source === 'edit')
    return version.edits > 1 ? t('history.youEditedSaves', { count: version.edits }) : t('history.youEdited')
  return t(SOURCE_LABEL[version.source])
}

type Preview =
  | { kind: 'loading'; version: FileVersion }
  | { kind: 'shown'; version: FileVersion; entry: DocumentAdapterEntry; content: DocumentContent; text: string | null }
  | { kind: 'failed'; version: FileVersion; message: string }

/**
 * File History in the file's tab (spec 08/09): every recorded version, human and agent, newest
 * first with the original last; a version previews read-only through the same adapter, text
 * compares with the current file, and Restore puts it back as a new recorded operation (after the
 * editor's last publish), which History then lists too — so a restore is undone the same way.
 */
export function HistoryPanel(props: {
  projectId: string
  path: string
  /** The editor's text now (for "Compare with current"); null when not a text editor. */
  currentText: () => string | null
  /** Waits for the editor's final publish; false when unpublished changes remain. */
  beforeRestore: () => Promise<boolean>
  onRestored: () => void
  onClose: () => void
}) {
  const client = useClient()
  const { t, locale } = useI18n()
  const [versions, setVersions] = useState<readonly FileVersion[] | null>(null)
  const [next, setNext] = useState<string | null>(null)
  /** The last listing's failure, kept as the outcome so the line follows a language switch. */
  const [listingFailure, setListingFailure] = useState<FailedOutcome | null>(null)
  const [preview, setPreview] = useState<Preview | null>(null)
  const [comparing, setComparing] = useState(false)
  const [status, setStatus] = useState<string | null>(null)
  const [reloads, setReloads] = useState(0)
  const owner = { project_id: props.projectId }

  useEffect(
    () =>
      onProjectEvent(client, props.projectId, (frame) => {
        if (frame.event !== 'workspace.changed') return
        const paths = changedPaths(frame)
        if (paths === 'all' || paths?.includes(props.path)) setReloads((n) => n + 1)
      }),
    [client, props.projectId, props.path],
  )

  useEffect(() => {
    const controller = new AbortController()
    void client
      .request(
        'files.history',
        { path: props.path },
        { owner: { project_id: props.projectId }, signal: controller.signal },
      )
      .then((outcome) => {
        if (outcome.kind === 'cancelled') return
        if (outcome.kind !== 'ok') {
          // The versions already listed stay: a failed reload must not empty what was shown.
          setListingFailure(outcome)
          return
        }
        setListingFailure(null)
        setVersions(outcome.result.versions)
        setNext(outcome.result.next_cursor)
      })
    return () => controller.abort()
  }, [client, props.projectId, props.path, reloads])

  const loadMore = async () => {
    if (!next) return
    const outcome: Awaited<ReturnType<typeof client.request<'files.history'>>> = await client.request(
      'files.history',
      { path: props.path, cursor: next },
      { owner },
    )
    if (outcome.kind === 'ok') {
      setVersions((current) => [...(current ?? []), ...outcome.result.versions])
      setNext(outcome.result.next_cursor)
    } else setReloads((n) => n + 1)
  }

  const open = useCallback(
    async (version: FileVersion) => {
      setComparing(false)
      setStatus(null)
      setPreview({ kind: 'loading', version })
      const read: Awaited<ReturnType<typeof client.request<'files.read_version'>>> = await client.request(
        'files.read_version',
        { path: props.path, version_id: version.version_id },
        { owner: { project_id: props.projectId } },
      )
      if (read.kind !== 'ok') {
        setPreview({
          kind: 'failed',
          version,
          message: read.kind === 'error' ? protocolErrorMessage(read.error, t) : t('history.failed'),
        })
        return
      }
      const result: ResultOf<'files.read_version'> = read.result
      const entry = resolveAdapter({
        kind: result.kind,
        mime: result.kind === 'binary' ? result.mime : 'text/plain',
        path: props.path,
        size: result.size,
      })
      if (!entry) {
        setPreview({ kind: 'failed', version, message: t('viewer.binary') })
        return
      }
      if (result.kind === 'text') {
        // A text version shown by a bytes adapter (RTF, an empty or broken `.pdf`): its bytes, as the tab does.
        const content: DocumentContent =
          entry.needs === 'bytes'
            ? { kind: 'bytes', bytes: new TextEncoder().encode(result.text), mime: 'text/plain' }
            : { kind: 'text', text: result.text }
        setPreview({ kind: 'shown', version, entry, content, text: result.text })
        return
      }
      const response = await fetch(result.url)
      if (!response.ok) {
        setPreview({ kind: 'failed', version, message: t('viewer.bytesFailed') })
        return
      }
      const bytes = new Uint8Array(await response.arrayBuffer())
      setPreview({ kind: 'shown', version, entry, content: { kind: 'bytes', bytes, mime: result.mime }, text: null })
    },
    [client, props.path, props.projectId, t],
  )

  const restore = async (version: FileVersion) => {
    setStatus(t('history.restoring'))
    if (!(await props.beforeRestore())) {
      setStatus(t('history.unpublished'))
      return
    }
    const current = await client.request('files.read', { path: props.path }, { owner })
    const expected =
      current.kind === 'ok'
        ? current.result.revision
        : current.kind === 'error' && current.error.code === 'NOT_FOUND'
          ? null
          : undefined
    if (expected === undefined) {
      setStatus(t('history.failed'))
      return
    }
    const restored = await client.request(
      'files.restore_version',
      { path: props.path, version_id: version.version_id, expected_revision: expected },
      { owner, idempotencyKey: crypto.randomUUID() },
    )
    if (restored.kind === 'ok') {
      setStatus(t('history.restored'))
      setPreview(null)
      props.onRestored()
      setReloads((n) => n + 1)
    } else {
      setStatus(restored.kind === 'error' ? protocolErrorMessage(restored.error, t) : t('history.failed'))
    }
  }

  const time = (ms: number) => new Date(ms).toLocaleString(locale)
  return (
    <aside className="history-panel" aria-label={t('history.title')} data-testid="history-panel">
      <header className="history-head">
        <strong>{t('history.title')}</strong>
        <button
          type="button"
          className="icon-button"
          aria-label={t('history.close')}
          title={t('history.close')}
          onClick={props.onClose}
        >
          <Icon name="close" />
        </button>
      </header>
      <ErrorLine className="viewer-note viewer-error" message={listingFailure && failureMessage(listingFailure, t)} />
      {versions !== null && versions.length === 0 && <p className="viewer-note">{t('history.empty')}</p>}
      {versions !== null && versions.length > 0 && (
        <ol className="history-list" data-testid="history-list">
          {versions.map((version) => (
            <li key={version.version_id}>
              <button
                type="button"
                className="history-item"
                data-testid="history-version"
                data-source={version.source}
                data-actor={version.actor}
                aria-current={preview?.version.version_id === version.version_id}
                onClick={() => void open(version)}
              >
                <span className="history-item-head">
                  <Icon
                    name={version.actor === 'agent' ? 'sparkle' : version.source === 'original' ? 'file' : 'person'}
                  />
                  <strong>{versionLabel(version, t)}</strong>
                </span>
                <span className="history-item-meta">
                  {time(version.created_at_ms)} · {formatBytes(version.size)}
                </span>
                {version.session_title && (
                  <span className="history-item-meta">
                    {version.session_title}
                    {version.session_archived ? ` (${t('history.archived')})` : ''}
                  </span>
                )}
              </button>
            </li>
          ))}
        </ol>
      )}
      {next && (
        <button type="button" onClick={() => void loadMore()}>
          {t('history.more')}
        </button>
      )}
      {preview && (
        <div className="history-preview" data-testid="history-preview">
          <div className="history-preview-bar">
            <span>{t(SOURCE_LABEL[preview.version.source])}</span>
            <span className="review-spacer" />
            {preview.kind === 'shown' && preview.text !== null && props.currentText() !== null && (
              <button
                type="button"
                data-testid="history-compare"
                aria-pressed={comparing}
                onClick={() => setComparing((c) => !c)}
              >
                {t('history.compare')}
              </button>
            )}
            <button
              type="button"
              className="primary"
              data-testid="history-restore"
              disabled={!preview.version.available}
              onClick={() => void restore(preview.version)}
            >
              {t('history.restore')}
            </button>
          </div>
          {status && (
            <p className="history-status" role="status" data-testid="history-status">
              {status}
            </p>
          )}
          {preview.kind === 'loading' && <p className="viewer-note">{t('history.loading')}</p>}
          {preview.kind === 'failed' && <ErrorLine className="viewer-note viewer-error" message={preview.message} />}
          {preview.kind === 'shown' &&
            (comparing && preview.text !== null ? (
              <Compare
                original={preview.text}
                modified={props.currentText() ?? ''}
                path={props.path}
                testId="history-compare-view"
              />
            ) : (
              <div className="history-preview-body">
                <DocumentHost
                  entry={preview.entry}
                  content={preview.content}
                  revision={preview.version.revision}
                  path={props.path}
                  readOnly
                  size="full"
                />
              </div>
            ))}
        </div>
      )}
    </aside>
  )
}

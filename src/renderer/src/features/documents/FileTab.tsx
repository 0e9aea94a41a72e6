import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react'
import type { FileRead } from '../../../../shared/protocol'
import { useClient } from '../../app/client-context'
import { formatBytes, useI18n } from '../../i18n'
import type { RequestOutcome } from '../../transport'
import { Icon } from '../../ui/Icon'
import { changedPaths, onProjectEvent } from '../../ui/project-events'
import { resolveAdapter } from './adapters/registry'
import type { DocumentAdapterEntry, DocumentContent, MountedDocument, SniffedType } from './adapters/types'
import { DocumentHost } from './DocumentHost'
import { createCopyNextTo } from './copy-next-to'
import { keptDocument, keptKey } from './kept-documents'
import { loadBytes, type BytesOutcome } from './load-bytes'
import { officeServices } from './office-services'
import { BinaryAutosave } from './save/binary-autosave'
import { filesWritePublisher } from './save/byte-publisher'
import { draftedPublisher, type DraftedPublisher } from './save/drafted-publisher'
import { SaveStatusBar } from './save/SaveStatusBar'
import { Unsupported } from './Unsupported'
import { EditBanner } from './EditBanner'
import { HistoryPanel } from './HistoryPanel'
import {
  draftStore,
  editorFor,
  markDirty,
  readCache,
  registerByteEditor,
  type Autosave,
  type AutosaveState,
} from '../drafts'
import './documents.css'

const IDLE: AutosaveState = { dirty: false, publishing: false, baseline: null, problem: null }
const noop = () => () => {}

type ViewState =
  | { kind: 'loading' }
  | {
      kind: 'shown'
      file: FileRead
      entry: DocumentAdapterEntry
      content: DocumentContent
      /** Text shown in an editable adapter: typing autosaves (spec 08). */
      editable: boolean
    }
  | { kind: 'unsupported'; file: FileRead; bytes: BytesOutcome | null }
  | { kind: 'gone' }
  | { kind: 'failed'; outcome: Exclude<RequestOutcome<unknown>, { kind: 'ok' }> }

/**
 * One file in a centre tab: read through the engine, shown by the adapter the registry picks, and
 * re-read when the watcher (or the journal) says it changed — the adapter gets the new content in
 * place, keeping its scroll. Render with `key={path}`.
 */
export function FileTab(props: {
  projectId: string
  path: string
  /** Where the view state (scroll, selection) of the last mount was kept. */
  viewState: unknown
  onViewState: (viewState: unknown) => void
  onReveal: (path: string) => void
  onOpenFile?: (path: string) => void
}) {
  const client = useClient()
  const { t } = useI18n()
  const [state, setState] = useState<ViewState>({ kind: 'loading' })
  const [diskVersion, setDiskVersion] = useState(0)
  const mounted = useRef<MountedDocument | null>(null)
  const { onViewState } = props
  const [initialViewState] = useState(props.viewState)
  const [autosave, setAutosave] = useState<Autosave | null>(null)
  const editing = useSyncExternalStore(autosave?.subscribe ?? noop, () => autosave?.getState() ?? IDLE)
  const [historyOpen, setHistoryOpen] = useState(false)
  const autosaveRef = useRef<Autosave | null>(null)
  // An editor that exports bytes (PDF annotations) publishes through the byte autosave; its own
  // writes come back as file changes and must not reload it.
  const byteSaverRef = useRef<BinaryAutosave | null>(null)
  const [byteSaver, setByteSaver] = useState<BinaryAutosave | null>(null)
  const [diskRevision, setDiskRevision] = useState<string | null>(null)
  const forceReload = useRef(false)
  const bytePublisherRef = useRef<DraftedPublisher | null>(null)
  const releaseByteEditor = useRef<(() => void) | null>(null)
  // Bytes a byte editor left unpublished on an earlier visit (read with the file, adopted on mount).
  const byteDraft = useRef<{ bytes: Uint8Array; conflict: boolean } | null>(null)
  useEffect(() => {
    if (!byteSaver) return
    const report = () => markDirty(props.projectId, props.path, byteSaver.store.get().status.kind !== 'clean')
    report()
    return byteSaver.store.subscribe(report)
  }, [byteSaver, props.projectId, props.path])
  useEffect(() => {
    autosaveRef.current = autosave
  }, [autosave])
  // The Office adapter's actions, bound to this one file (a conversion's new file opens in a tab).
  // The adapter keeps the instance it was mounted with, so a new one here never re-mounts it.
  const { onOpenFile } = props
  const office = useMemo(
    () => officeServices(client, props.projectId, props.path, (target) => onOpenFile?.(target)),
    [client, props.projectId, props.path, onOpenFile],
  )

  // Leaving the tab (a switch or a close) ends the editing session and publishes what is left now;
  // the draft stays durable if that fails.
  useEffect(
    () => () => {
      const current = autosaveRef.current
      if (!current) return
      current.newEditSession()
      void current.flush()
    },
    [],
  )
  useEffect(() => {
    if (!mounted.current || !autosave) return
    mounted.current.setReadOnly?.(editing.problem?.kind === 'quota' || editing.problem?.kind === 'storage')
  }, [autosave, editing.problem])

  useEffect(
    () =>
      onProjectEvent(client, props.projectId, (frame) => {
        const paths = changedPaths(frame)
        if (paths !== null && (paths === 'all' || paths.includes(props.path))) setDiskVersion((v) => v + 1)
      }),
    [client, props.projectId, props.path],
  )

  useEffect(() => {
    const controller = new AbortController()
    const owner = { project_id: props.projectId }
    void (async () => {
      const byteEditor = byteSaverRef.current
      await byteEditor?.settled()
      if (controller.signal.aborted) return
      // A complete earlier read of this path (nothing changed it since) spares the request.
      const cached = diskVersion === 0 ? readCache.get(props.projectId, props.path) : undefined
      const outcome: RequestOutcome<FileRead> =
        cached?.kind === 'text'
          ? {
              kind: 'ok',
              result: {
                kind: 'text',
                path: props.path,
                text: cached.text,
                revision: cached.revision,
                size: cached.size,
              },
            }
          : await client.request('files.read', { path: props.path }, { owner, signal: controller.signal })
      if (controller.signal.aborted || outcome.kind === 'cancelled') return
      const reload = forceReload.current
      forceReload.current = false
      if (byteEditor && outcome.kind === 'ok' && !reload) {
        // Our own publish (or nothing new): the editor already shows these bytes.
        if (outcome.result.revision === byteEditor.baseline) return
        // Changed underneath unpublished edits: keep them, and let the person choose (spec 08).
        if (byteEditor.unpublished) {
          setDiskRevision(outcome.result.revision)
          byteEditor.conflict(t('save.conflict'))
          return
        }
        byteEditor.discard(outcome.result.revision)
      }
      if (outcome.kind !== 'ok') {
        const gone = outcome.kind === 'error' && outcome.error.code === 'NOT_FOUND'
        setState(gone && diskVersion > 0 ? { kind: 'gone' } : { kind: 'failed', outcome })
        return
      }
      const file = outcome.result
      if (file.kind === 'text') {
        readCache.set(props.projectId, props.path, {
          kind: 'text',
          text: file.text,
          revision: file.revision,
          size: file.size,
        })
      }
      const type: SniffedType = {
        kind: file.kind,
        mime: file.kind === 'binary' ? file.mime : 'text/plain',
        path: file.path,
        size: file.size,
      }
      const entry = resolveAdapter(type)
      if (!entry) {
        setState({ kind: 'unsupported', file, bytes: null })
        return
      }
      if (entry.needs === 'text' || file.kind === 'text') {
        const content: DocumentContent =
          file.kind === 'text'
            ? entry.needs === 'text'
              ? { kind: 'text', text: file.text }
              : { kind: 'bytes', bytes: new TextEncoder().encode(file.text), mime: type.mime }
            : { kind: 'text', text: '' }
        const editable = file.kind === 'text' && entry.needs === 'text'
        if (editable) {
          const editor = await editorFor(client, props.projectId, props.path, {
            revision: file.revision,
            size: file.size,
          })
          if (controller.signal.aborted) return
          // A draft from before (a reload, a crash, another visit to this tab) is what is shown.
          const draft = await (await draftStore()).get(props.projectId, props.path)
          if (controller.signal.aborted) return
          if (draft || editor.getState().dirty) {
            if (draft && !editor.getState().dirty) await editor.restore()
            setAutosave(editor)
            // The editor holds the person's unpublished text: a change on disk never replaces it
            // (a conflict, if any, is the banner's to resolve).
            const fromDraft: DocumentContent | null =
              draft && draft.content.kind === 'text' ? { kind: 'text', text: draft.content.text } : null
            setState((current) =>
              current.kind === 'shown' && current.editable
                ? current
                : { kind: 'shown', file, entry, content: fromDraft ?? content, editable },
            )
            return
          }
          editor.rebase(file.revision)
          setAutosave(editor)
        }
        // The same bytes again (a touch, an identical save): nothing to redraw.
        setState((current) =>
          current.kind === 'shown' &&
          current.file.revision === file.revision &&
          current.content.kind === content.kind &&
          (content.kind !== 'text' || (current.content.kind === 'text' && current.content.text === content.text))
            ? current
            : { kind: 'shown', file, entry, content, editable },
        )
        return
      }
      // The adapter's chunk (and what it loads, e.g. pdf.js and its worker) loads meanwhile.
      void entry.load().catch(() => undefined)
      const bytes = await loadBytes(
        client,
        { kind: 'project-file', projectId: props.projectId, path: props.path },
        controller.signal,
      )
      if (controller.signal.aborted) return
      if (bytes.kind === 'ok') {
        let shown = bytes.bytes
        if (entry.edits === 'bytes' && !byteSaverRef.current) {
          // A draft left by an earlier visit (a reload, a crash, a failed publish) is what is shown.
          const draft = await (await draftStore()).get(props.projectId, props.path)
          if (controller.signal.aborted) return
          byteDraft.current =
            draft?.content.kind === 'bytes'
              ? { bytes: draft.content.bytes, conflict: draft.baseline_revision !== file.revision }
              : null
          if (byteDraft.current) shown = byteDraft.current.bytes
        }
        setState({
          kind: 'shown',
          file,
          entry,
          content: { kind: 'bytes', bytes: shown, mime: bytes.mime },
          editable: false,
        })
      } else {
        setState({ kind: 'unsupported', file, bytes })
      }
    })()
    return () => controller.abort()
  }, [client, props.projectId, props.path, diskVersion, t])

  // The last view state is handed back to the tab model when this tab is unmounted.
  useEffect(
    () => () => {
      const view = mounted.current?.viewState()
      if (view !== undefined) onViewState(view)
    },
    [onViewState],
  )

  const reveal = () => props.onReveal(props.path)
  const download = async (): Promise<Blob | null> => {
    const exported = await mounted.current?.export()
    if (exported) return exported
    const bytes = await loadBytes(client, { kind: 'project-file', projectId: props.projectId, path: props.path })
    return bytes.kind === 'ok' ? new Blob([bytes.bytes as Uint8Array<ArrayBuffer>], { type: bytes.mime }) : null
  }
  let body
  if (state.kind === 'loading') {
    body = <p className="viewer-note">{t('viewer.loading', { path: props.path })}</p>
  } else if (state.kind === 'shown') {
    const editsBytes = state.entry.edits === 'bytes'
    const baseline = state.file.revision
    body = (
      <DocumentHost
        entry={state.entry}
        content={state.content}
        revision={state.file.revision}
        path={props.path}
        readOnly={!state.editable && !editsBytes}
        onOpenFile={props.onOpenFile}
        size="full"
        viewState={initialViewState}
        office={state.entry.id === 'office' ? office : undefined}
        keep={state.entry.keep ? keptKey(props.projectId, props.path) : undefined}
        createCopy={(bytes, extension) => createCopyNextTo(client, props.projectId, props.path, bytes, extension)}
        onMounted={(instance) => {
          mounted.current = instance
          const kept = state.entry.keep ? keptDocument(keptKey(props.projectId, props.path)) : undefined
          if (instance && editsBytes && !byteSaverRef.current && kept?.autosave) {
            // Back from a tab switch: the kept editor's autosave, with whatever it has pending.
            byteSaverRef.current = kept.autosave
            bytePublisherRef.current = kept.publisher ?? null
            // Whatever draft the read found is this editor's own pending bytes: nothing to adopt.
            byteDraft.current = null
            setByteSaver(kept.autosave)
            return
          }
          if (instance && editsBytes && !byteSaverRef.current) {
            const publisher = draftedPublisher(filesWritePublisher(client, props.projectId, props.path), {
              store: draftStore,
              projectId: props.projectId,
              path: props.path,
              mime: state.content.kind === 'bytes' ? state.content.mime : 'application/octet-stream',
              baselineSize: state.file.size,
            })
            const created = new BinaryAutosave({
              exportBytes: async (options) => new Uint8Array(await (await instance.export(options)).arrayBuffer()),
              publisher,
              baseline,
            })
            instance.on('changed', () => created.changed())
            const draft = byteDraft.current
            byteDraft.current = null
            if (draft) {
              if (draft.conflict) setDiskRevision(baseline)
              created.adopt(draft.bytes, draft.conflict ? t('save.conflict') : undefined)
            }
            const unregister = registerByteEditor(props.projectId, props.path, {
              flush: () => created.flush(),
              discard: async () => {
                created.discard(created.baseline)
                await publisher.forget()
              },
            })
            if (kept) {
              // Kept across tab switches: the autosave and this registration go when the tab closes.
              kept.autosave = created
              kept.publisher = publisher
              kept.cleanup = () => {
                unregister()
                if (!created.unpublished) markDirty(props.projectId, props.path, false)
              }
            }
            byteSaverRef.current = created
            bytePublisherRef.current = publisher
            releaseByteEditor.current = unregister
            setByteSaver(created)
            return
          }
          if (!instance || !state.editable) return
          instance.on('changed', () => {
            const editor = autosaveRef.current
            const text = instance.currentText?.()
            if (!editor || text === undefined) return
            void editor.change({ kind: 'text', text }).then((written) => {
              if (written.kind !== 'ok') instance.setReadOnly?.(true)
            })
          })
        }}
        release={async (_instance, how) => {
          // Closing or leaving the tab: a byte editor's last edits are exported and published first.
          const editor = byteSaverRef.current
          byteSaverRef.current = null
          if (!editor) return
          if (how.kept) {
            // A kept editor stays alive (and keeps its autosave); what is pending is published now,
            // and the hidden tab's dot follows (this view no longer watches the autosave).
            await editor.flush()
            if (!editor.unpublished) markDirty(props.projectId, props.path, false)
            return
          }
          await editor.flush()
          editor.dispose()
          releaseByteEditor.current?.()
          releaseByteEditor.current = null
          // A publish that still failed leaves its draft (and the dot) for the next visit.
          if (!editor.unpublished) markDirty(props.projectId, props.path, false)
        }}
      />
    )
  } else if (state.kind === 'unsupported') {
    const mime = state.file.kind === 'binary' ? state.file.mime : 'text/plain'
    body = (
      <Unsupported
        path={props.path}
        mime={mime}
        size={state.file.size}
        reason={
          state.bytes?.kind === 'unavailable' && state.bytes.reason === 'failed'
            ? t('viewer.bytesFailed')
            : t('viewer.binary')
        }
        onDownload={download}
        onReveal={reveal}
      />
    )
  } else if (state.kind === 'gone') {
    body = (
      <p className="viewer-note" role="status">
        {t('viewer.gone', { path: props.path })}
      </p>
    )
  } else if (state.outcome.kind === 'error' && state.outcome.error.code === 'TOO_LARGE') {
    const details = state.outcome.error.details ?? {}
    body = (
      <Unsupported
        path={props.path}
        mime={typeof details.mime === 'string' ? details.mime : 'application/octet-stream'}
        size={typeof details.size === 'number' ? details.size : 0}
        reason={t('viewer.tooLarge', { limit: formatBytes(typeof details.limit === 'number' ? details.limit : 0) })}
        onDownload={download}
        onReveal={reveal}
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
      <header className="viewer-header">
        <nav className="viewer-path" aria-label={t('viewer.breadcrumbs')}>
          {props.path.split('/').map((segment, index, all) => (
            <span key={index} className={index === all.length - 1 ? 'crumb crumb-last' : 'crumb'}>
              {segment}
            </span>
          ))}
        </nav>
        {state.kind === 'shown' && !state.editable && !state.entry.edits && (
          <span className="badge">{t('viewer.readOnly')}</span>
        )}
        {byteSaver && <SaveStatusBar autosave={byteSaver} placement="badge" />}
        {state.kind === 'shown' && state.editable && (
          <span className="save-state" role="status" data-testid="save-state" data-dirty={editing.dirty}>
            {editing.publishing ? t('edit.saving') : editing.dirty ? t('edit.unsaved') : ''}
          </span>
        )}
        <button
          type="button"
          className="icon-button"
          data-testid="history-toggle"
          aria-pressed={historyOpen}
          aria-label={t('history.toggle')}
          title={t('history.toggle')}
          onClick={() => setHistoryOpen((open) => !open)}
        >
          <Icon name="history" />
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label={t('viewer.reveal')}
          title={t('viewer.reveal')}
          onClick={reveal}
        >
          <Icon name="list-tree" />
        </button>
      </header>
      {autosave && state.kind === 'shown' && (
        <EditBanner
          projectId={props.projectId}
          path={props.path}
          autosave={autosave}
          state={editing}
          currentText={() => mounted.current?.currentText?.() ?? ''}
          onReload={() => setDiskVersion((v) => v + 1)}
          onOpenFile={props.onOpenFile}
        />
      )}
      {byteSaver && (
        <SaveStatusBar
          autosave={byteSaver}
          placement="banner"
          path={props.path}
          onOverwrite={() => diskRevision !== null && byteSaver.overwrite(diskRevision)}
          onDiscard={() => {
            if (diskRevision === null) return
            byteSaver.discard(diskRevision)
            void bytePublisherRef.current?.forget()
            forceReload.current = true
            setDiskVersion((v) => v + 1)
          }}
        />
      )}
      <div className="viewer-split">
        <div className="viewer-body">{body}</div>
        {historyOpen && (
          <HistoryPanel
            projectId={props.projectId}
            path={props.path}
            currentText={() => mounted.current?.currentText?.() ?? null}
            beforeRestore={async () => {
              // Restoring waits for the final publish of whichever editor holds this file.
              const text = autosaveRef.current ? await autosaveRef.current.flush() : true
              const bytes = byteSaverRef.current ? await byteSaverRef.current.flush() : true
              return text && bytes
            }}
            onRestored={() => {
              autosaveRef.current?.newEditSession()
              setDiskVersion((v) => v + 1)
            }}
            onClose={() => setHistoryOpen(false)}
          />
        )}
      </div>
    </section>
  )
}

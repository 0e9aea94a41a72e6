import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react'
import { documentViewRequests } from '../../ui/document-requests'
import { changedPaths, onProjectEvent } from '../../ui/project-events'
import type { AutosaveState } from '../drafts'
import type { MountedDocument } from './adapters/types'
import { createCopyNextTo } from './copy-next-to'
import { DocumentHost } from './DocumentHost'
import { EditBanner } from './EditBanner'
import { FileHeader } from './FileHeader'
import { HistoryPanel } from './HistoryPanel'
import { loadBytes } from './load-bytes'
import { officeServices } from './office-services'
import { ViewStates } from './ViewStates'
import type { DocumentView } from './working-copy/document-view'
import { nextView, readDocument } from './working-copy/read-document'
import { SaveStatusBar } from './working-copy/SaveStatusBar'
import type { WorkingCopyService } from './working-copy/service'
import { TextWorkingCopy } from './working-copy/text-working-copy'
import type { WorkingCopy } from './working-copy/working-copy'
import './documents.css'

const CLEAN: AutosaveState = { dirty: false, publishing: false, baseline: null, problem: null }
const noop = () => () => {}

/**
 * One file in a centre tab: a view of the path's working copy (the project's `WorkingCopyService`
 * reads, caches, drafts and publishes it), shown by the adapter the registry picks and updated in
 * place when the watcher or the journal says the file changed. Render with `key={path}`.
 */
export function FileTab(props: {
  workingCopies: WorkingCopyService
  path: string
  /** Where the view state (scroll, selection) of the last mount was kept. */
  viewState: unknown
  onViewState: (viewState: unknown) => void
  onReveal: (path: string) => void
  onOpenFile?: (path: string) => void
}) {
  const { workingCopies: service, path, onViewState, onOpenFile } = props
  const { client, projectId } = service
  // A kept editor comes back at once, as it was left; the read below only checks the disk behind it.
  const [view, setView] = useState<DocumentView>(() => service.keptView(path) ?? { kind: 'loading' })
  const [reads, setReads] = useState(() => (service.keptView(path) ? 1 : 0))
  const [historyOpen, setHistoryOpen] = useState(false)
  const [initialViewState] = useState(props.viewState)
  const [copy, setCopy] = useState<WorkingCopy | null>(null)
  const saving = useSyncExternalStore(copy?.subscribe ?? noop, () => copy?.getState() ?? CLEAN)
  const mounted = useRef<MountedDocument | null>(null)
  const reread = () => setReads((n) => n + 1)
  const keep = useMemo(() => service.keptSlot(path), [service, path])
  // The Office adapter's actions, bound to this one file (a conversion's new file opens in a tab).
  // The adapter keeps the instance it was mounted with, so a new one here never re-mounts it.
  const office = useMemo(
    () => officeServices(client, projectId, path, (target) => onOpenFile?.(target)),
    [client, projectId, path, onOpenFile],
  )

  useEffect(() => {
    const offEvents = onProjectEvent(client, projectId, (frame) => {
      const paths = changedPaths(frame)
      if (paths !== null && (paths === 'all' || paths.includes(path))) setReads((n) => n + 1)
    })
    const offViews = documentViewRequests.listen((r) => {
      if (r.projectId === projectId && r.path === path) mounted.current?.restoreViewState?.(r.viewState)
    })
    return () => (offEvents(), offViews())
  }, [client, projectId, path])
  useEffect(() => {
    const controller = new AbortController()
    void readDocument(service, path, reads > 0, controller.signal).then((read) => {
      if (!read) return
      setView((current) => nextView(current, read))
      setCopy(service.get(path) ?? null)
    })
    return () => controller.abort()
  }, [service, path, reads])
  useEffect(() => service.rememberView(path, view), [service, path, view])
  // A full draft store (or a browser that refuses to store) pauses typing until resolved.
  useEffect(() => {
    if (copy?.kind === 'text')
      mounted.current?.setReadOnly?.(saving.problem?.kind === 'quota' || saving.problem?.kind === 'storage')
  }, [copy, saving.problem])
  // The last view state is handed back to the tab model when this tab is unmounted.
  useEffect(
    () => () => {
      const state = mounted.current?.viewState()
      if (state !== undefined) onViewState(state)
    },
    [onViewState],
  )

  const reveal = () => props.onReveal(path)
  const download = async (): Promise<Blob | null> => {
    const exported = await mounted.current?.export()
    if (exported) return exported
    const bytes = await loadBytes(client, { kind: 'project-file', projectId, path })
    return bytes.kind === 'ok' ? new Blob([bytes.bytes as Uint8Array<ArrayBuffer>], { type: bytes.mime }) : null
  }
  const shown = view.kind === 'shown' ? view : null
  const body = shown ? (
    <DocumentHost
      entry={shown.entry}
      content={shown.content}
      revision={shown.file.revision}
      path={path}
      readOnly={!shown.editable && shown.entry.edits !== 'bytes'}
      onOpenFile={onOpenFile}
      size="full"
      viewState={initialViewState}
      office={shown.entry.id === 'office' ? office : undefined}
      keep={shown.entry.keep ? keep : undefined}
      createCopy={(bytes, extension) => createCopyNextTo(client, projectId, path, bytes, extension)}
      onMounted={(instance) => {
        mounted.current = instance
        if (!instance) return
        // A reader kept from before shows its own place; a page asked for when opening wins.
        if (isPageRequest(initialViewState)) instance.restoreViewState?.(initialViewState)
        if (shown.entry.edits === 'bytes') {
          const mime = shown.content.kind === 'bytes' ? shown.content.mime : 'application/octet-stream'
          const file = { revision: shown.file.revision, size: shown.file.size, mime }
          setCopy(service.bytesCopy(path, instance, file, shown.draft))
        } else if (shown.editable) {
          instance.on('changed', () => {
            const text = instance.currentText?.()
            const current = service.get(path)
            if (!(current instanceof TextWorkingCopy) || text === undefined) return
            void current.change(text).then((written) => {
              if (written.kind !== 'ok') instance.setReadOnly?.(true)
            })
          })
        }
      }}
      // Leaving the tab (a switch or a close) ends the editing session and publishes what is left
      // first; a byte editor's last edits are exported before its instance goes.
      release={(_instance, how) => service.leave(path, how)}
    />
  ) : (
    <ViewStates
      path={path}
      view={view as Exclude<DocumentView, { kind: 'shown' }>}
      onDownload={download}
      onReveal={reveal}
    />
  )

  return (
    <section className="viewer" aria-label={path}>
      <FileHeader
        path={path}
        readOnly={shown !== null && !shown.editable && !shown.entry.edits}
        saves={shown?.editable ? 'text' : copy?.kind === 'bytes' ? 'bytes' : null}
        state={saving}
        historyOpen={historyOpen}
        onHistory={() => setHistoryOpen((open) => !open)}
        onReveal={reveal}
      />
      {copy instanceof TextWorkingCopy && shown && (
        <EditBanner
          projectId={projectId}
          path={path}
          copy={copy}
          state={saving}
          currentText={() => mounted.current?.currentText?.() ?? ''}
          onReload={reread}
          onOpenFile={onOpenFile}
        />
      )}
      {copy?.kind === 'bytes' && (
        <SaveStatusBar
          state={saving}
          placement="banner"
          path={path}
          onRetry={() => void copy.retry()}
          onOverwrite={() =>
            void copy.overwrite(saving.problem?.kind === 'conflict' ? saving.problem.actualRevision : null)
          }
          onDiscard={() => {
            if (saving.problem?.kind !== 'conflict') return
            void copy.revert(saving.problem.actualRevision).then(reread)
          }}
        />
      )}
      <div className="viewer-split">
        <div className="viewer-body">{body}</div>
        {historyOpen && (
          <HistoryPanel
            projectId={projectId}
            path={path}
            currentText={() => mounted.current?.currentText?.() ?? null}
            // Restoring waits for the final publish of whichever editor holds this file.
            beforeRestore={async () => (await service.get(path)?.save()) ?? true}
            onRestored={() => {
              service.get(path)?.endEditSession()
              reread()
            }}
            onClose={() => setHistoryOpen(false)}
          />
        )}
      </div>
    </section>
  )
}

/** A one-time "open at this place" (pdf `pageViewState`), as opposed to a view state a tab saved. */
function isPageRequest(viewState: unknown): boolean {
  return (
    typeof viewState === 'object' && viewState !== null && (viewState as { pageRequest?: unknown }).pageRequest === true
  )
}

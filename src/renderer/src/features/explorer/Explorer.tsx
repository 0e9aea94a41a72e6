import { useEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react'
import type { DirEntry } from '../../../../shared/protocol'
import { useClient } from '../../ui/client-context'
import { useI18n } from '../../i18n'
import { changedPaths, onProjectEvent } from '../../ui/project-events'
import { useStore } from '../../ui/store'
import { explorerRequests } from './commands'
import { DirectoryItems } from './DirectoryItems'
import { ExplorerSearch } from './ExplorerSearch'
import { ExplorerToolbar, type ExplorerToolbarHandle } from './ExplorerToolbar'
import { fileClipboardSlot, pasteFile } from './file-clipboard'
import { useScopeSlot } from '../../ui/project-scope'
import { ErrorLine } from '../../ui/ErrorLine'
import { useAction } from '../../ui/use-action'
import { parentPath } from '../../../../shared/paths'
import { gitStoreSlot } from './git-store'
import { treeStoreSlot } from './tree-store'
import './explorer.css'

function rowIn(tree: HTMLElement, path: string): HTMLElement | null {
  return tree.querySelector<HTMLElement>(`[role="treeitem"][data-path="${CSS.escape(path)}"]`)
}

/**
 * The row appears once its folders' listings arrive; wait for it, a little. Looked up inside this
 * explorer's own tree, never the whole document, so another tree on the page cannot answer; once
 * the explorer unmounts the wait ends.
 */
function focusRow(
  tree: RefObject<HTMLUListElement | null>,
  find: (root: HTMLElement) => HTMLElement | null,
  started: number,
) {
  if (!tree.current) return
  const row = find(tree.current)
  if (row) {
    row.scrollIntoView({ block: 'nearest' })
    row.focus()
  } else if (Date.now() - started < 3_000) requestAnimationFrame(() => focusRow(tree, find, started))
}

/**
 * The project tree (spec 08): folders expand lazily, each listing is paged by the server, and
 * files changed outside the app show up as the watcher reports them. Keyboard: ↑/↓ move, →
 * expands, ← collapses or goes to the parent, Enter/Space opens (as a preview), Shift+Enter pins;
 * as in VS Code, F2 renames the row, Delete asks before deleting it, Ctrl+C / Ctrl+V copy a file
 * into the focused folder (or the focused file's folder).
 * The window reaches it through `explorerRequests` (focus, reveal a path), see ./commands.ts.
 */
export function Explorer(props: {
  projectId: string
  onOpenFile: (entry: DirEntry, pinned: boolean) => void
  onPathGone: (path: string, movedTo: string | null) => void
}) {
  const { t } = useI18n()
  const client = useClient()
  const tree = useScopeSlot(treeStoreSlot)
  const git = useScopeSlot(gitStoreSlot)
  const selected = useStore(tree.store, (s) => s.selected)
  const expanded = useStore(tree.store, (s) => s.expanded)
  const [query, setQuery] = useState('')
  const treeElement = useRef<HTMLUListElement>(null)
  const toolbar = useRef<ExplorerToolbarHandle>(null)
  const clipboard = useScopeSlot(fileClipboardSlot)
  const paste = useAction()
  const focusPath = (path: string | null) =>
    requestAnimationFrame(() =>
      focusRow(
        treeElement,
        // The row itself, waited for while its listing arrives; with no path, the first row.
        (root) => (path !== null ? rowIn(root, path) : root.querySelector<HTMLElement>('[role="treeitem"]')),
        Date.now(),
      ),
    )

  useEffect(() => {
    git.refreshSoon(0)
    return onProjectEvent(client, props.projectId, (frame) => {
      const paths = changedPaths(frame)
      if (paths === null) return
      tree.refresh(paths)
      git.refreshSoon()
    })
  }, [client, props.projectId, tree, git])

  useEffect(
    () =>
      explorerRequests.listen((request) => {
        if (request.projectId !== props.projectId) return
        if (request.kind === 'reveal') {
          setQuery('')
          const segments = request.path.split('/')
          tree.expand(segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join('/')))
          tree.select({ path: request.path, kind: 'file' })
          requestAnimationFrame(() => focusRow(treeElement, (root) => rowIn(root, request.path), Date.now()))
          return
        }
        // The selected row, else the first; a tree shown for the first time (a drawer just opened)
        // has no rows until its listing arrives, so the focus waits for them as a reveal does.
        const current = tree.store.get().selected?.path
        const pick = (root: HTMLElement) =>
          (current && rowIn(root, current)) || root.querySelector<HTMLElement>('[role="treeitem"]')
        focusRow(treeElement, pick, Date.now())
      }),
    [props.projectId, tree],
  )

  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    const items = [...event.currentTarget.querySelectorAll<HTMLElement>('[role="treeitem"]')]
    const current = document.activeElement instanceof HTMLElement ? document.activeElement : null
    const index = current ? items.indexOf(current) : -1
    const focus = (i: number) => items[Math.max(0, Math.min(items.length - 1, i))]?.focus()
    const path = current?.dataset.path
    switch (event.key) {
      case 'ArrowDown':
        focus(index + 1)
        break
      case 'ArrowUp':
        focus(index - 1)
        break
      case 'Home':
        focus(0)
        break
      case 'End':
        focus(items.length - 1)
        break
      case 'ArrowRight':
        if (path !== undefined && current?.dataset.kind === 'dir' && !expanded.has(path)) tree.toggle(path)
        else focus(index + 1)
        break
      case 'ArrowLeft':
        if (path !== undefined && expanded.has(path)) tree.toggle(path)
        else if (path !== undefined && path.includes('/')) {
          const parent = path.slice(0, path.lastIndexOf('/'))
          items.find((item) => item.dataset.path === parent)?.focus()
        }
        break
      case 'F2':
      case 'Delete': {
        if (path === undefined || current?.dataset.kind === undefined) return
        const entry = { path, kind: current.dataset.kind as DirEntry['kind'] }
        tree.select(entry)
        if (event.key === 'F2') toolbar.current?.rename(entry)
        else toolbar.current?.confirmDelete()
        break
      }
      case 'c':
      case 'C':
      case 'v':
      case 'V': {
        // Ctrl on Linux and Windows, ⌘ on macOS; with Shift or Alt it is another shortcut.
        if (!(event.ctrlKey || event.metaKey) || event.shiftKey || event.altKey || path === undefined) return
        const kind = current?.dataset.kind
        if (event.key.toLowerCase() === 'c') {
          // Folders cannot be copied yet (files.copy refuses them): only a file is remembered.
          if (kind === 'file') clipboard.set(path)
          break
        }
        const source = clipboard.get()
        if (source === null) break
        const folder = kind === 'dir' ? path : parentPath(path)
        void paste
          .run((signal) => pasteFile(client, props.projectId, source, folder, signal))
          .then((outcome) => {
            if (outcome.kind !== 'ok') return
            if (folder !== '') tree.expand([folder])
            tree.refresh([outcome.result.path])
            tree.select({ path: outcome.result.path, kind: 'file' })
            focusPath(outcome.result.path)
          })
        break
      }
      case 'Enter':
      case ' ':
        if (event.shiftKey && current?.dataset.kind !== 'dir')
          current?.dispatchEvent(new MouseEvent('dblclick', { bubbles: true }))
        else current?.click()
        break
      default:
        return
    }
    event.preventDefault()
  }

  return (
    <nav className="explorer" aria-label={t('explorer.title')}>
      <div className="pane-header">
        <h2 className="pane-title">{t('explorer.title')}</h2>
        <ExplorerToolbar
          projectId={props.projectId}
          selected={selected}
          onCreated={(path, kind) => {
            tree.select({ path, kind })
            tree.refresh([path])
            if (kind === 'file')
              props.onOpenFile({ name: path.slice(path.lastIndexOf('/') + 1), path, kind, size: 0, mtime_ms: 0 }, true)
          }}
          onRenamed={(from, to) => {
            tree.select({ path: to, kind: 'file' })
            tree.refresh([from, to])
            props.onPathGone(from, to)
            focusPath(to)
          }}
          onDeleted={(path) => {
            tree.select(null)
            tree.refresh([path])
            props.onPathGone(path, null)
            focusPath(parentPath(path) || null)
          }}
          handle={toolbar}
          onDismiss={() => focusPath(tree.store.get().selected?.path ?? null)}
        />
      </div>
      <ErrorLine message={paste.error} className="toolbar-error" />
      <ExplorerSearch
        projectId={props.projectId}
        query={query}
        onQuery={setQuery}
        onOpenFile={props.onOpenFile}
        onRevealFolder={(path) => {
          const segments = path.split('/')
          tree.expand(segments.map((_, i) => segments.slice(0, i + 1).join('/')))
          tree.select({ path, kind: 'dir' })
          requestAnimationFrame(() => focusRow(treeElement, (root) => rowIn(root, path), Date.now()))
        }}
      />
      <ul
        ref={treeElement}
        hidden={query.trim() !== ''}
        role="tree"
        aria-label={t('explorer.title')}
        className="tree"
        tabIndex={0}
        onKeyDown={onKeyDown}
        onFocus={(event) => {
          if (event.target === event.currentTarget) {
            event.currentTarget.querySelector<HTMLElement>('[role="treeitem"]')?.focus()
          }
        }}
      >
        <DirectoryItems tree={tree} git={git} path="" depth={0} onOpen={props.onOpenFile} />
      </ul>
    </nav>
  )
}

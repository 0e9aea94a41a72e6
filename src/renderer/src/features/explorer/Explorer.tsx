import { useCallback, useEffect, useImperativeHandle, useMemo, useState, type KeyboardEvent, type Ref } from 'react'
import { useClient } from '../../app/client-context'
import type { DirEntry } from '../../../../shared/protocol'
import { useI18n } from '../../i18n'
import { DirectoryItems, type TreeSelection } from './DirectoryItems'
import { ExplorerToolbar, type SelectedEntry } from './ExplorerToolbar'

export interface ExplorerHandle {
  reveal(path: string): void
}

/**
 * The project tree (spec 08): folders expand lazily, each listing is paged by the server. Keyboard:
 * ↑/↓ move, → expands, ← collapses or goes to the parent, Enter/Space opens.
 */
export function Explorer(props: {
  projectId: string
  onOpenFile: (entry: DirEntry) => void
  openPath: string | null
  onPathGone: (path: string, movedTo: string | null) => void
  /** Lets the workspace reveal a path: its folders expand, it is selected and scrolled into view. */
  handle?: Ref<ExplorerHandle>
}) {
  const { t } = useI18n()
  const client = useClient()
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set())
  const [selected, setSelected] = useState<SelectedEntry | null>(null)
  // Bumped on every workspace change: the tree re-reads its listings (events are hints; spec 02).
  const [treeVersion, setTreeVersion] = useState(0)
  useEffect(
    () =>
      client.onEvent((frame) => {
        if (frame.event === 'workspace.changed') setTreeVersion((v) => v + 1)
      }),
    [client],
  )
  const toggle = useCallback((path: string) => {
    setExpanded((current) => {
      const next = new Set(current)
      if (next.has(path)) next.delete(path)
      else next.add(path)
      return next
    })
  }, [])
  useImperativeHandle(
    props.handle,
    () => ({
      reveal(path: string) {
        const segments = path.split('/')
        setExpanded((current) => {
          const next = new Set(current)
          for (let i = 1; i < segments.length; i++) next.add(segments.slice(0, i).join('/'))
          return next
        })
        setSelected({ path, kind: 'file' })
        // The row appears once its folders' listings arrive; wait for it, a little.
        const started = Date.now()
        const find = () => {
          const row = document.querySelector<HTMLElement>(`[role="treeitem"][data-path="${CSS.escape(path)}"]`)
          if (row) {
            row.scrollIntoView({ block: 'nearest' })
            row.focus()
          } else if (Date.now() - started < 3_000) requestAnimationFrame(find)
        }
        requestAnimationFrame(find)
      },
    }),
    [],
  )
  const { onOpenFile, onPathGone } = props
  const selection: TreeSelection = useMemo(
    () => ({
      expanded,
      selectedPath: selected?.path ?? props.openPath,
      toggle: (path: string) => {
        setSelected({ path, kind: 'dir' })
        toggle(path)
      },
      open: (entry: DirEntry) => {
        setSelected({ path: entry.path, kind: entry.kind })
        onOpenFile(entry)
      },
    }),
    [expanded, selected, props.openPath, toggle, onOpenFile],
  )

  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    const items = [...event.currentTarget.querySelectorAll<HTMLElement>('[role="treeitem"]')]
    const current = document.activeElement instanceof HTMLElement ? document.activeElement : null
    const index = current ? items.indexOf(current) : -1
    const focus = (i: number) => {
      const item = items[Math.max(0, Math.min(items.length - 1, i))]
      if (item) item.focus()
    }
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
        if (path !== undefined && current?.dataset.kind === 'dir' && !expanded.has(path)) toggle(path)
        else focus(index + 1)
        break
      case 'ArrowLeft':
        if (path !== undefined && expanded.has(path)) toggle(path)
        else if (path !== undefined && path.includes('/')) {
          const parent = path.slice(0, path.lastIndexOf('/'))
          items.find((item) => item.dataset.path === parent)?.focus()
        }
        break
      case 'Enter':
      case ' ':
        current?.click()
        break
      default:
        return
    }
    event.preventDefault()
  }

  return (
    <nav className="explorer" aria-label={t('explorer.title')}>
      <h2 className="pane-title">{t('explorer.title')}</h2>
      <ExplorerToolbar
        projectId={props.projectId}
        selected={selected}
        onCreated={(path, kind) => {
          setSelected({ path, kind })
          setTreeVersion((v) => v + 1)
          if (kind === 'file')
            onOpenFile({ name: path.slice(path.lastIndexOf('/') + 1), path, kind, size: 0, mtime_ms: 0 })
        }}
        onRenamed={(from, to) => {
          setSelected({ path: to, kind: 'file' })
          setTreeVersion((v) => v + 1)
          onPathGone(from, to)
        }}
        onDeleted={(path) => {
          setSelected(null)
          setTreeVersion((v) => v + 1)
          onPathGone(path, null)
        }}
      />
      <ul
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
        <DirectoryItems
          key={`${props.projectId}:${treeVersion}`}
          projectId={props.projectId}
          path=""
          depth={0}
          selection={selection}
        />
      </ul>
    </nav>
  )
}

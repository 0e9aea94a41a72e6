import { useEffect } from 'react'
import type { DirEntry, GitFileState } from '../../../../shared/protocol'
import { useI18n, type MessageKey } from '../../i18n'
import { fileIcon } from '../../ui/file-icons'
import { Icon } from '../../ui/Icon'
import { ErrorLine } from '../../ui/ErrorLine'
import { failureMessage } from '../../ui/outcome-message'
import { useStore } from '../../ui/store'
import type { GitStore } from './git-store'
import type { TreeStore } from './tree-store'

const GIT_LETTER: Record<GitFileState, string> = {
  modified: 'M',
  added: 'A',
  deleted: 'D',
  renamed: 'R',
  untracked: 'U',
  conflicted: '!',
}
const GIT_LABEL: Record<GitFileState, MessageKey> = {
  modified: 'git.modified',
  added: 'git.added',
  deleted: 'git.deleted',
  renamed: 'git.renamed',
  untracked: 'git.untracked',
  conflicted: 'git.conflicted',
}

/** One folder's rows (and, below each expanded folder, its own rows), read from the tree store. */
export function DirectoryItems(props: {
  tree: TreeStore
  git: GitStore
  path: string
  depth: number
  onOpen: (entry: DirEntry, pinned: boolean) => void
}) {
  const { t } = useI18n()
  const { tree, path } = props
  const folder = useStore(tree.store, (s) => s.folders.get(path))
  const expandedSet = useStore(tree.store, (s) => s.expanded)
  const selected = useStore(tree.store, (s) => s.selected?.path ?? null)
  const git = useStore(props.git.store)
  useEffect(() => tree.ensure(path), [tree, path])
  const indent = { paddingInlineStart: `${0.5 + props.depth * 0.85}rem` }
  if (!folder) return null

  return (
    <>
      {folder.reloaded && (
        <li role="none" className="tree-note" style={indent}>
          {t('explorer.stale')}
        </li>
      )}
      {folder.entries.map((entry) => {
        const isDir = entry.kind === 'dir'
        const expanded = isDir && expandedSet.has(entry.path)
        const state = git.files.get(entry.path)
        const dirty = isDir && git.folders.has(entry.path)
        const icon = isDir ? { icon: expanded ? 'folder-opened' : 'folder', tint: 'tint-folder' } : fileIcon(entry.path)
        return (
          <li role="none" key={entry.path}>
            <div
              role="treeitem"
              tabIndex={-1}
              aria-level={props.depth + 1}
              aria-expanded={isDir ? expanded : undefined}
              aria-selected={selected === entry.path}
              aria-description={state ? t(GIT_LABEL[state]) : undefined}
              data-path={entry.path}
              data-kind={entry.kind}
              data-git={state ?? (dirty ? 'folder' : undefined)}
              className="tree-item"
              style={indent}
              onClick={() => {
                tree.select({ path: entry.path, kind: entry.kind })
                if (isDir) tree.toggle(entry.path)
                else props.onOpen(entry, false)
              }}
              onDoubleClick={() => {
                if (!isDir) props.onOpen(entry, true)
              }}
            >
              {isDir ? (
                <Icon name={expanded ? 'chevron-down' : 'chevron-right'} className="tree-twisty" />
              ) : (
                <span className="tree-twisty" aria-hidden="true" />
              )}
              <Icon name={icon.icon} className={`tree-icon ${icon.tint}`} />
              <span className="tree-label">{entry.name}</span>
              {state && (
                <span className="tree-git" aria-hidden="true">
                  {GIT_LETTER[state]}
                </span>
              )}
              {dirty && !state && <span className="tree-git-dot" aria-hidden="true" />}
            </div>
            {expanded && (
              <ul role="group">
                <DirectoryItems
                  tree={tree}
                  git={props.git}
                  path={entry.path}
                  depth={props.depth + 1}
                  onOpen={props.onOpen}
                />
              </ul>
            )}
          </li>
        )
      })}
      {folder.loading && folder.entries.length === 0 && (
        <li role="none" className="tree-note" style={indent}>
          {t('explorer.loading')}
        </li>
      )}
      {!folder.loading && folder.failure !== null && (
        <li role="none" className="tree-note tree-error" style={indent}>
          <ErrorLine inline message={failureMessage(folder.failure, t)} />{' '}
          <button type="button" className="link-button" onClick={() => tree.retry(path)}>
            {t('explorer.retry')}
          </button>
        </li>
      )}
      {!folder.loading && folder.failure === null && folder.total === 0 && props.depth === 0 && (
        <li role="none" className="tree-note" style={indent}>
          {t('explorer.empty')}
        </li>
      )}
      {folder.nextCursor !== null && !folder.loading && (
        <li role="none" style={indent}>
          <button type="button" className="tree-more" onClick={() => tree.loadMore(path)}>
            {t('explorer.more', { shown: folder.entries.length, total: folder.total })}
          </button>
        </li>
      )}
    </>
  )
}

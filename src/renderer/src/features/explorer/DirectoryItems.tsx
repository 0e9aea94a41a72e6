import type { DirEntry } from '../../../../shared/protocol'
import { useI18n } from '../../i18n'
import { useDirectory } from './use-directory'

export interface TreeSelection {
  readonly expanded: ReadonlySet<string>
  readonly selectedPath: string | null
  toggle(path: string): void
  open(entry: DirEntry): void
}

export function DirectoryItems(props: { projectId: string; path: string; depth: number; selection: TreeSelection }) {
  const { t } = useI18n()
  const { state, loadMore, reload } = useDirectory(props.projectId, props.path)
  const indent = { paddingInlineStart: `${0.75 + props.depth * 1}rem` }

  return (
    <>
      {state.reloaded && (
        <li role="none" className="tree-note" style={indent}>
          {t('explorer.stale')}
        </li>
      )}
      {state.entries.map((entry) => {
        const expanded = entry.kind === 'dir' && props.selection.expanded.has(entry.path)
        return (
          <li role="none" key={entry.path}>
            <div
              role="treeitem"
              tabIndex={-1}
              aria-level={props.depth + 1}
              aria-expanded={entry.kind === 'dir' ? expanded : undefined}
              aria-selected={props.selection.selectedPath === entry.path}
              data-path={entry.path}
              data-kind={entry.kind}
              className="tree-item"
              style={indent}
              onClick={() => (entry.kind === 'dir' ? props.selection.toggle(entry.path) : props.selection.open(entry))}
            >
              <span className={`tree-icon tree-icon-${entry.kind}${expanded ? ' open' : ''}`} aria-hidden="true" />
              <span className="tree-label">{entry.name}</span>
            </div>
            {expanded && (
              <ul role="group">
                <DirectoryItems
                  projectId={props.projectId}
                  path={entry.path}
                  depth={props.depth + 1}
                  selection={props.selection}
                />
              </ul>
            )}
          </li>
        )
      })}
      {state.loading && (
        <li role="none" className="tree-note" style={indent}>
          {t('explorer.loading')}
        </li>
      )}
      {!state.loading && state.error !== null && (
        <li role="none" className="tree-note tree-error" style={indent}>
          <span role="alert">{state.error}</span>{' '}
          <button type="button" className="link-button" onClick={reload}>
            {t('explorer.retry')}
          </button>
        </li>
      )}
      {!state.loading && state.error === null && state.total === 0 && props.depth === 0 && (
        <li role="none" className="tree-note" style={indent}>
          {t('explorer.empty')}
        </li>
      )}
      {state.nextCursor !== null && !state.loading && (
        <li role="none" style={indent}>
          <button type="button" className="tree-more" onClick={loadMore}>
            {t('explorer.more', { shown: state.entries.length, total: state.total })}
          </button>
        </li>
      )}
    </>
  )
}

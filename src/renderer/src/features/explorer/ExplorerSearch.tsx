import { useRef, type KeyboardEvent } from 'react'
import type { DirEntry } from '../../../../shared/protocol'
import { baseName, parentPath } from '../../../../shared/paths'
import { useClient } from '../../ui/client-context'
import { useI18n } from '../../i18n'
import { fileIcon } from '../../ui/file-icons'
import { ErrorLine } from '../../ui/ErrorLine'
import { Icon } from '../../ui/Icon'
import { failureMessage } from '../../ui/outcome-message'
import { useProjectSearch } from '../../ui/project-search'

/**
 * The explorer's search box (spec 08): the engine searches the whole project — never just the
 * folders that are expanded — and pages of results replace the tree while the box has text.
 * ↓ from the box moves into the results, Enter opens a file or reveals a folder, Escape clears.
 */
export function ExplorerSearch(props: {
  projectId: string
  query: string
  onQuery: (query: string) => void
  onOpenFile: (entry: DirEntry, pinned: boolean) => void
  onRevealFolder: (path: string) => void
}) {
  const { t } = useI18n()
  const client = useClient()
  const { state, loadMore } = useProjectSearch(
    client,
    props.query.trim() === '' ? null : props.projectId,
    props.query,
    'all',
  )
  const list = useRef<HTMLUListElement>(null)
  const open = (path: string, kind: string) => {
    if (kind === 'dir') {
      props.onQuery('')
      props.onRevealFolder(path)
    } else props.onOpenFile({ name: baseName(path), path, kind: 'file', size: 0, mtime_ms: 0 }, true)
  }
  const onListKey = (event: KeyboardEvent<HTMLUListElement>) => {
    const items = [...event.currentTarget.querySelectorAll<HTMLElement>('button')]
    const index = items.indexOf(document.activeElement as HTMLElement)
    if (event.key === 'ArrowDown') items[Math.min(items.length - 1, index + 1)]?.focus()
    else if (event.key === 'ArrowUp') {
      if (index <= 0) document.querySelector<HTMLInputElement>('[data-testid="explorer-search"]')?.focus()
      else items[index - 1]?.focus()
    } else if (event.key === 'Escape') props.onQuery('')
    else return
    event.preventDefault()
  }
  return (
    <div className="explorer-search">
      <div className="explorer-search-box">
        <Icon name="search" />
        <input
          type="search"
          data-testid="explorer-search"
          aria-label={t('search.label')}
          placeholder={t('search.placeholder')}
          value={props.query}
          onChange={(event) => props.onQuery(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'ArrowDown') {
              event.preventDefault()
              list.current?.querySelector<HTMLElement>('button')?.focus()
            } else if (event.key === 'Escape') props.onQuery('')
          }}
        />
      </div>
      {props.query.trim() !== '' && (
        <div className="explorer-results" aria-live="polite">
          {state.kind === 'ready' && (
            <p className="explorer-results-count" data-testid="explorer-search-total">
              {state.total === 0 ? t('search.none') : t('search.results', { total: state.total })}
            </p>
          )}
          {state.kind === 'error' && (
            <ErrorLine message={failureMessage(state.failure, t)} className="explorer-results-count" />
          )}
          {state.kind === 'ready' && state.truncated && <p className="explorer-results-count">{t('search.partial')}</p>}
          {state.kind === 'ready' && (
            <ul ref={list} className="explorer-results-list" aria-label={t('search.label')} onKeyDown={onListKey}>
              {state.entries.map((entry) => {
                const icon = entry.kind === 'dir' ? { icon: 'folder', tint: '' } : fileIcon(entry.path)
                return (
                  <li key={entry.path}>
                    <button
                      type="button"
                      className="explorer-result"
                      data-testid="explorer-search-result"
                      data-path={entry.path}
                      onClick={() => open(entry.path, entry.kind)}
                    >
                      <Icon name={icon.icon} className={icon.tint} />
                      <span className="explorer-result-name">{entry.name}</span>
                      <span className="explorer-result-dir">{parentPath(entry.path)}</span>
                    </button>
                  </li>
                )
              })}
            </ul>
          )}
          {state.kind === 'ready' && state.next !== null && (
            <button type="button" className="explorer-results-more" onClick={loadMore}>
              {t('search.more')}
            </button>
          )}
        </div>
      )}
    </div>
  )
}

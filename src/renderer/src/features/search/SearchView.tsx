import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react'
import type { ContentMatch } from '../../../../shared/protocol'
import { baseName, parentPath } from '../../../../shared/paths'
import { useI18n } from '../../i18n'
import { useClient } from '../../ui/client-context'
import { ErrorLine } from '../../ui/ErrorLine'
import { fileIcon } from '../../ui/file-icons'
import { Icon } from '../../ui/Icon'
import { failureMessage } from '../../ui/outcome-message'
import { useStore } from '../../ui/store'
import type { MatchTarget } from './open-match'
import { hideSearchView, searchFocusRequests, searchViewState } from './search-view-state'
import { useContentSearch, type ContentQuery } from './use-content-search'
import './search.css'

/** `a, b` → ['a', 'b'] (VS Code's include/exclude boxes take comma-separated globs). */
function globsOf(text: string): string[] {
  return text
    .split(',')
    .map((glob) => glob.trim())
    .filter((glob) => glob !== '')
}

/** Characters of a line shown before its first match: the match stays in sight in a narrow side bar. */
const LEAD = 12

/**
 * The preview with each match in a <mark>: ranges come sorted from the engine, clipped to the text.
 * As in VS Code, the line's indentation is dropped and a long lead before the first match is cut to
 * its last few characters, so the match is visible however narrow the side bar is.
 */
function highlighted(match: ContentMatch): ReactNode[] {
  const parts: ReactNode[] = []
  const first = match.ranges[0]?.[0] ?? 0
  const indent = match.preview.length - match.preview.trimStart().length
  let at = Math.min(indent, first)
  let cut = match.preview_cut
  if (first - at > LEAD) {
    at = first - LEAD
    // Never start between the two halves of a surrogate pair.
    if (/[\uDC00-\uDFFF]/.test(match.preview[at] ?? '')) at -= 1
    cut = true
  }
  match.ranges.forEach(([start, end], i) => {
    if (start < at || end > match.preview.length) return
    if (start > at) parts.push(match.preview.slice(at, start))
    parts.push(<mark key={i}>{match.preview.slice(start, end)}</mark>)
    at = end
  })
  if (at < match.preview.length) parts.push(match.preview.slice(at))
  return cut ? ['…', ...parts] : parts
}

/**
 * Search in file contents (issue 25), VS Code's search view: the query box with match case, whole
 * word and regex toggles, files to include / exclude, and results grouped by file. ↓ from a box
 * moves into the results, ↑/↓ move between matches, Enter or a click opens the file at the match;
 * Escape in the results goes back to the box, Escape in the box closes the view.
 */
export function SearchView(props: { projectId: string; onOpenMatch: (match: MatchTarget) => void }) {
  const { t } = useI18n()
  const client = useClient()
  const [text, setText] = useState('')
  const [matchCase, setMatchCase] = useState(false)
  const [wholeWord, setWholeWord] = useState(false)
  const [regex, setRegex] = useState(false)
  const [include, setInclude] = useState('')
  const [exclude, setExclude] = useState('')
  const input = useRef<HTMLInputElement>(null)
  const results = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const focusBox = () => {
      input.current?.focus()
      input.current?.select()
    }
    focusBox()
    return searchFocusRequests.listen(focusBox)
  }, [])

  const query: ContentQuery | null = useMemo(() => {
    if (text === '') return null
    const includes = globsOf(include)
    const excludes = globsOf(exclude)
    return {
      query: text,
      ...(matchCase ? { match_case: true } : {}),
      ...(wholeWord ? { whole_word: true } : {}),
      ...(regex ? { regex: true } : {}),
      ...(includes.length > 0 ? { include: includes } : {}),
      ...(excludes.length > 0 ? { exclude: excludes } : {}),
    }
  }, [text, matchCase, wholeWord, regex, include, exclude])
  const { state, loadMore } = useContentSearch(client, props.projectId, query)
  const shown = state.kind === 'ready' ? state : state.kind === 'searching' ? state.previous : null
  const matchCount = shown?.files.reduce((sum, file) => sum + file.matches.length, 0) ?? 0

  const intoResults = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault()
      results.current?.querySelector<HTMLElement>('button.search-match')?.focus()
    }
  }
  const onResultsKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = [...event.currentTarget.querySelectorAll<HTMLElement>('button.search-match')]
    const index = items.indexOf(document.activeElement as HTMLElement)
    if (event.key === 'ArrowDown') items[Math.min(items.length - 1, index + 1)]?.focus()
    else if (event.key === 'ArrowUp') {
      if (index <= 0) input.current?.focus()
      else items[index - 1]?.focus()
    } else if (event.key === 'Escape') input.current?.focus()
    else return
    event.preventDefault()
    event.stopPropagation()
  }
  const toggle = (props: {
    label: string
    pressed: boolean
    onChange: (on: boolean) => void
    glyph: string
    id: string
  }) => (
    <button
      type="button"
      className="search-toggle"
      data-testid={`content-search-${props.id}`}
      aria-label={props.label}
      title={props.label}
      aria-pressed={props.pressed}
      onClick={() => props.onChange(!props.pressed)}
    >
      {props.glyph}
    </button>
  )

  return (
    <section className="search-view" aria-label={t('contentSearch.title')} data-testid="content-search">
      <header className="search-view-header">
        <h2>{t('contentSearch.title')}</h2>
        <button
          type="button"
          className="search-close"
          aria-label={t('contentSearch.close')}
          title={t('contentSearch.close')}
          onClick={hideSearchView}
        >
          <Icon name="close" />
        </button>
      </header>
      <div className="search-query-row">
        <input
          ref={input}
          type="text"
          data-testid="content-search-input"
          aria-label={t('contentSearch.label')}
          placeholder={t('contentSearch.placeholder')}
          value={text}
          spellCheck={false}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.preventDefault()
              hideSearchView()
            } else intoResults(event)
          }}
        />
        {toggle({
          id: 'case',
          label: t('contentSearch.matchCase'),
          glyph: 'Aa',
          pressed: matchCase,
          onChange: setMatchCase,
        })}
        {toggle({
          id: 'word',
          label: t('contentSearch.wholeWord'),
          glyph: 'ab',
          pressed: wholeWord,
          onChange: setWholeWord,
        })}
        {toggle({ id: 'regex', label: t('contentSearch.regex'), glyph: '.*', pressed: regex, onChange: setRegex })}
      </div>
      <input
        type="text"
        className="search-glob"
        data-testid="content-search-include"
        aria-label={t('contentSearch.include')}
        placeholder={t('contentSearch.includePlaceholder')}
        value={include}
        spellCheck={false}
        onChange={(event) => setInclude(event.target.value)}
        onKeyDown={intoResults}
      />
      <input
        type="text"
        className="search-glob"
        data-testid="content-search-exclude"
        aria-label={t('contentSearch.exclude')}
        placeholder={t('contentSearch.excludePlaceholder')}
        value={exclude}
        spellCheck={false}
        onChange={(event) => setExclude(event.target.value)}
        onKeyDown={intoResults}
      />
      <div className="search-status" aria-live="polite" data-testid="content-search-status">
        {state.kind === 'searching' && <p>{t('contentSearch.searching')}</p>}
        {state.kind === 'error' && <ErrorLine message={failureMessage(state.failure, t)} />}
        {state.kind === 'ready' &&
          (state.files.length === 0 ? (
            <p>{t('contentSearch.none')}</p>
          ) : (
            <p>
              {t('contentSearch.summary', { matches: matchCount, files: state.files.length })}
              {state.next !== null ? ` ${t('contentSearch.moreAvailable')}` : ''}
            </p>
          ))}
        {state.kind === 'ready' && state.stopped === 'limit' && <p>{t('contentSearch.limit')}</p>}
        {state.kind === 'ready' && state.stopped === 'time' && <p>{t('contentSearch.time')}</p>}
      </div>
      {shown !== null && shown.files.length > 0 && (
        <div className="search-results" ref={results} onKeyDown={onResultsKey}>
          <ul aria-label={t('contentSearch.results')}>
            {shown.files.map((file) => {
              const icon = fileIcon(file.path)
              return (
                <li key={file.path} className="search-file" data-testid="content-search-file" data-path={file.path}>
                  <div className="search-file-name" title={file.path}>
                    <Icon name={icon.icon} className={icon.tint} />
                    <span className="search-file-base">{baseName(file.path)}</span>
                    <span className="search-file-dir">{parentPath(file.path)}</span>
                    <span className="search-file-count">
                      {file.matches.length}
                      {file.more ? '+' : ''}
                    </span>
                  </div>
                  <ul>
                    {file.matches.map((match) => {
                      const first = match.ranges[0]
                      const target: MatchTarget = {
                        path: file.path,
                        line: match.line,
                        column: match.column,
                        length: first ? first[1] - first[0] : 0,
                      }
                      return (
                        <li key={match.line}>
                          <button
                            type="button"
                            className="search-match"
                            data-testid="content-search-match"
                            data-path={file.path}
                            data-line={match.line}
                            data-column={match.column}
                            aria-label={t('contentSearch.matchLabel', {
                              path: file.path,
                              line: match.line,
                              column: match.column,
                              text: match.preview,
                            })}
                            onClick={() => props.onOpenMatch(target)}
                          >
                            <span className="search-match-at">
                              {match.line}:{match.column}
                            </span>
                            <span className="search-match-preview">{highlighted(match)}</span>
                          </button>
                        </li>
                      )
                    })}
                  </ul>
                </li>
              )
            })}
          </ul>
          {state.kind === 'ready' && state.next !== null && (
            <button type="button" className="search-more" disabled={state.loadingMore} onClick={loadMore}>
              {t('contentSearch.more')}
            </button>
          )}
        </div>
      )}
    </section>
  )
}

/**
 * The side bar: the explorer, or the search view over it while it is open. The explorer stays
 * mounted underneath (hidden) so its tree, scroll and search box survive a trip to the search view.
 */
export function SearchSideBar(props: {
  projectId: string
  onOpenMatch: (match: MatchTarget) => void
  children: ReactNode
}) {
  const open = useStore(searchViewState, (state) => state.open)
  return (
    <>
      <div className="search-side-explorer" hidden={open}>
        {props.children}
      </div>
      {open && <SearchView projectId={props.projectId} onOpenMatch={props.onOpenMatch} />}
    </>
  )
}

import { useCallback, useEffect, useMemo, useState } from 'react'
import type { ReviewCategory } from '../../../../shared/protocol'
import { baseName, parentPath } from '../../../../shared/paths'
import { useClient } from '../../ui/client-context'
import { useI18n } from '../../i18n'
import { fileIcon } from '../../ui/file-icons'
import { Icon } from '../../ui/Icon'
import { failureMessage } from '../../ui/outcome-message'
import { useStore } from '../../ui/store'
import { useTurnsWithChanges } from '../session'
import { CommandNotes } from './CommandNotes'
import { DiffPane } from './DiffPane'
import { isDocumentRow } from './document-rows'
import type { LineAnchor } from '../../ui/diff'
import { useScopeSlot } from '../../ui/project-scope'
import { reviewStoreSlot, type ReviewViewState } from './review-store'
import { TurnHeader } from './TurnHeader'
import { queryKey, useReview, type ReviewQuery, type ReviewScope, type ReviewSort, type SubScope } from './use-review'
import './review.css'
import { ErrorLine } from '../../ui/ErrorLine'
import { RowCounts } from './RowCounts'
import { pageViewState } from '../documents'

/** A line comment, bound to the change it was written against (spec 07). */
interface ReviewComment {
  readonly id: string
  readonly scopeKey: string
  readonly snapshotId: string
  readonly path: string
  readonly side: 'old' | 'new'
  readonly line: number
  readonly quote: string
  readonly text: string
  readonly transactionIds: readonly string[]
  readonly changeSetIds: readonly string[]
}

const CATEGORIES: readonly ReviewCategory[] = ['code', 'tests', 'docs', 'large', 'other']
/** The filter box queries the server after this pause in typing. */
export const FILTER_DEBOUNCE_MS = 250

/** Builds the structured prompt "Send to agent" sends: every comment with where it points. */
export function commentsPrompt(comments: readonly ReviewComment[]): string {
  return [
    'Please address these review comments:',
    ...comments.map(
      (c) =>
        `- ${c.path}:${c.line} (${c.side === 'new' ? 'new' : 'old'} side, line "${c.quote.trim()}"${
          c.changeSetIds.length > 0 ? `, change set ${c.changeSetIds.join(', ')}` : ''
        }): ${c.text}`,
    ),
  ].join('\n')
}

/**
 * The Review tab (centre): scope switcher with the turn under review named and pickable, a
 * server-filtered file rail (filter as you type), and one diff at a time.
 */
export default function ReviewPane(props: {
  projectId: string
  sessionId: string | null
  /** `viewState`: where the file's view opens (a PDF page for an annotation), as its tab restores it. */
  onOpenFile: (path: string, viewState?: unknown) => void
  onReveal: (path: string) => void
}) {
  const client = useClient()
  const { t } = useI18n()
  const store = useScopeSlot(reviewStoreSlot)
  const view = useStore(store)
  const update = useCallback((next: Partial<ReviewViewState>) => store.set((s) => ({ ...s, ...next })), [store])
  const turns = useTurnsWithChanges(props.projectId, props.sessionId)
  const latest = turns && turns.length > 0 ? (turns[turns.length - 1] ?? null) : null
  const pinned = view.pinnedTurnId !== null && turns !== null && turns.some((turn) => turn.turnId === view.pinnedTurnId)
  const turn = pinned ? (turns?.find((x) => x.turnId === view.pinnedTurnId) ?? null) : latest
  const scope: ReviewScope = view.scope ?? (props.sessionId === null ? 'workspace' : latest ? 'turn' : 'branch')
  // A session switch (or a turn the session does not have) falls back to following the latest.
  useEffect(() => {
    if (view.pinnedTurnId !== null && turns !== null && !pinned) update({ pinnedTurnId: null })
  }, [view.pinnedTurnId, turns, pinned, update])

  const [debounced, setDebounced] = useState(view.search)
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(view.search), FILTER_DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [view.search])

  const turnId = scope === 'turn' ? (turn?.turnId ?? null) : null
  const query: ReviewQuery = useMemo(
    () => ({
      scope,
      turnId,
      subScope: view.subScope,
      category: view.category,
      source: scope === 'turn' ? view.source : null,
      query: debounced,
      sort: view.sort,
    }),
    [scope, turnId, view.subScope, view.category, view.source, debounced, view.sort],
  )
  const review = useReview(props.projectId, props.sessionId, query)
  const key = queryKey(query)
  const typing = view.search.trim() !== debounced.trim()
  const list = review.state
  const [comments, setComments] = useState<ReviewComment[]>([])
  const [draft, setDraft] = useState<{ anchor: LineAnchor; text: string } | null>(null)
  const [sent, setSent] = useState<string | null>(null)

  // Changing scope, filter, query or sort discards the selection and the open diff.
  const change = (next: Partial<ReviewViewState>) => {
    update({ ...next, selected: null })
    setDraft(null)
  }
  const file = list.kind === 'ready' && !typing ? (list.files.find((f) => f.path === view.selected) ?? null) : null
  const live = useMemo(
    () => comments.filter((c) => c.scopeKey === key && list.kind === 'ready' && c.snapshotId === list.snapshotId),
    [comments, key, list],
  )
  const stale = comments.length - live.length
  const onStale = review.reload
  const noSession = props.sessionId === null

  async function send() {
    if (props.sessionId === null || live.length === 0) return
    const outcome = await client.request(
      'session.prompt',
      { session_id: props.sessionId, text: commentsPrompt(live) },
      { owner: { project_id: props.projectId } },
    )
    if (outcome.kind === 'ok') {
      setComments((all) => all.filter((c) => !live.includes(c)))
      setSent(t('review.sent', { count: live.length }))
    } else setSent(failureMessage(outcome, t))
  }

  const scopeLabel = scope === 'workspace' ? t(`review.sub.${view.subScope}`) : t(`review.scope.${scope}`)
  return (
    <section className="review" data-testid="review" aria-label={t('review.title')}>
      <div className="review-stack">
        <div className="review-rail">
          <div className="review-scopes" role="tablist" aria-label={t('review.scopeLabel')}>
            {(['turn', 'branch', 'workspace'] as ReviewScope[]).map((option) => (
              <button
                key={option}
                type="button"
                role="tab"
                aria-selected={scope === option}
                data-testid={`review-scope-${option}`}
                disabled={(option === 'turn' && latest === null) || (option !== 'workspace' && noSession)}
                title={option !== 'workspace' && noSession ? t('review.noSession') : undefined}
                onClick={() => change({ scope: option })}
              >
                {t(`review.scope.${option}`)}
              </button>
            ))}
          </div>
          {scope === 'turn' && (
            <TurnHeader
              turns={turns}
              turn={turn}
              pinned={pinned}
              onPick={(turnId) => change({ pinnedTurnId: turnId })}
            />
          )}
          {scope === 'workspace' && (
            <select
              aria-label={t('review.subScope')}
              value={view.subScope}
              onChange={(event) => change({ subScope: event.target.value as SubScope })}
              data-testid="review-sub-scope"
            >
              {(['all', 'unstaged', 'staged', 'branch', 'commit'] as const).map((sub) => (
                <option key={sub} value={sub}>
                  {t(`review.sub.${sub}`)}
                </option>
              ))}
            </select>
          )}
          <div className="review-search">
            <Icon name="filter" className="review-search-icon" />
            <input
              type="search"
              data-testid="review-search"
              aria-label={t('review.search')}
              placeholder={t('review.search')}
              value={view.search}
              onChange={(event) => update({ search: event.target.value, selected: null })}
            />
            <select
              aria-label={t('review.sort')}
              value={view.sort}
              onChange={(event) => change({ sort: event.target.value as ReviewSort })}
            >
              <option value="path">{t('review.sortPath')}</option>
              <option value="churn">{t('review.sortChurn')}</option>
              <option value="size">{t('review.sortSize')}</option>
            </select>
          </div>
          <div className="review-chips" role="group" aria-label={t('review.categories')}>
            <button
              type="button"
              aria-pressed={view.category === null && view.source === null}
              onClick={() => change({ category: null, source: null })}
            >
              {t('review.all')}
            </button>
            {scope === 'turn' && (
              <button
                type="button"
                data-testid="review-source-command"
                aria-pressed={view.source === 'command'}
                onClick={() => change({ source: view.source === 'command' ? null : 'command' })}
              >
                {t('review.commands')}
              </button>
            )}
            {CATEGORIES.map((category) => (
              <button
                key={category}
                type="button"
                data-testid={`review-category-${category}`}
                aria-pressed={view.category === category}
                onClick={() => change({ category })}
              >
                {t(`review.category.${category}`)}
                {list.kind === 'ready' && !typing && view.category === null && (
                  <span className="chip-count">{list.totals.by_category[category] ?? 0}</span>
                )}
              </button>
            ))}
          </div>
          {review.staleNotice && (
            <p className="review-note" role="status">
              {t('review.staleReloaded')}
            </p>
          )}
          <div
            className="review-list"
            data-testid="review-list"
            data-query={list.kind === 'ready' && !typing ? list.key : ''}
            data-scope-label={scopeLabel}
            aria-busy={list.kind === 'loading' || typing}
          >
            {(list.kind === 'loading' || typing) && (
              <p className="review-note" role="status" data-testid="review-loading">
                {typing ? t('review.filtering') : t('review.loadingScope', { scope: scopeLabel })}
              </p>
            )}
            {list.kind === 'idle' && !typing && (
              <p className="review-note">{noSession ? t('review.noSession') : t('review.noTurns')}</p>
            )}
            {list.kind === 'error' && !typing && <ErrorLine className="review-note" message={list.message} />}
            {list.kind === 'ready' && !typing && (
              <>
                <p className="review-totals" data-testid="review-totals">
                  {/* Documents and pictures have no line counts: no "+— −—" when nothing has them. */}
                  {list.totals.added === null && list.totals.removed === null
                    ? t('review.totalsFiles', { files: list.totals.files })
                    : t('review.totals', {
                        files: list.totals.files,
                        added: list.totals.added ?? '—',
                        removed: list.totals.removed ?? '—',
                      })}
                </p>
                <ul className="review-files" data-testid="review-files" aria-label={scopeLabel}>
                  {list.files.map((row) => {
                    const icon = fileIcon(row.path)
                    return (
                      <li key={row.path}>
                        <button
                          type="button"
                          className="review-file"
                          data-testid="review-file"
                          data-path={row.path}
                          data-source={row.source}
                          data-operation={row.operation}
                          data-undone={row.undone === true || undefined}
                          aria-current={row.path === view.selected}
                          onClick={() => {
                            update({ selected: row.path })
                            setDraft(null)
                          }}
                        >
                          <Icon name={icon.icon} className={`review-file-icon ${icon.tint}`} />
                          <span className="review-file-name">
                            <strong>{baseName(row.path)}</strong>
                            {parentPath(row.path) !== '' && <span className="file-dir">{parentPath(row.path)}</span>}
                          </span>
                          {row.undone === true && (
                            <span className="review-undone-mark" data-testid="review-undone">
                              {t('review.undone')}
                            </span>
                          )}
                          {row.outside_changes > 0 && (
                            <span
                              className="review-outside-mark"
                              role="img"
                              aria-label={t('review.outside', { count: row.outside_changes })}
                              title={t('review.outside', { count: row.outside_changes })}
                            >
                              <Icon name="warning" />
                            </span>
                          )}
                          <RowCounts
                            row={row}
                            snapshotId={list.snapshotId}
                            owner={
                              noSession
                                ? { project_id: props.projectId }
                                : { project_id: props.projectId, session_id: props.sessionId ?? '' }
                            }
                          />
                        </button>
                      </li>
                    )
                  })}
                </ul>
                {list.next !== null && (
                  <button type="button" data-testid="review-more" onClick={review.loadMore}>
                    {t('review.loadMore')}
                  </button>
                )}
                {scope === 'turn' && list.notes !== null && <CommandNotes notes={list.notes} />}
              </>
            )}
          </div>
        </div>
        <div className="review-main">
          {file && list.kind === 'ready' ? (
            <>
              <div className="review-file-bar">
                <strong className="review-file-path">{file.path}</strong>
                <span className="review-file-meta">
                  {t(`review.op.${file.operation}`)} · {t(`review.source.${file.source}`)}
                  {file.undone === true && ` · ${t('review.undoneLong')}`}
                  {file.outside_changes > 0 && (
                    <span className="review-outside" data-testid="review-outside" role="note">
                      {' · '}
                      {t('review.outside', { count: file.outside_changes })}
                    </span>
                  )}
                </span>
                <span className="review-spacer" />
                {!isDocumentRow(file) && (
                  <div className="segmented" role="group" aria-label={t('review.layout')}>
                    <button
                      type="button"
                      aria-pressed={view.layout === 'split'}
                      onClick={() => update({ layout: 'split' })}
                      data-testid="review-layout-split"
                    >
                      <Icon name="split-horizontal" /> {t('review.split')}
                    </button>
                    <button
                      type="button"
                      aria-pressed={view.layout === 'unified'}
                      onClick={() => update({ layout: 'unified' })}
                      data-testid="review-layout-unified"
                    >
                      <Icon name="list-flat" /> {t('review.unified')}
                    </button>
                  </div>
                )}
                {file.operation !== 'delete' && (
                  <>
                    <button
                      type="button"
                      data-testid="review-open"
                      className="icon-button"
                      aria-label={t('review.open')}
                      title={t('review.open')}
                      onClick={() => props.onOpenFile(file.path)}
                    >
                      <Icon name="go-to-file" />
                    </button>
                    <button
                      type="button"
                      data-testid="review-reveal"
                      className="icon-button"
                      aria-label={t('review.reveal')}
                      title={t('review.reveal')}
                      onClick={() => props.onReveal(file.path)}
                    >
                      <Icon name="list-tree" />
                    </button>
                  </>
                )}
              </div>
              <DiffPane
                key={`${list.snapshotId}:${file.path}`}
                owner={
                  noSession
                    ? { project_id: props.projectId }
                    : { project_id: props.projectId, session_id: props.sessionId ?? '' }
                }
                snapshotId={list.snapshotId}
                file={file}
                layout={view.layout}
                onComment={(anchor) => setDraft({ anchor, text: '' })}
                onStale={onStale}
                onShowPage={
                  file.operation === 'delete' ? undefined : (page) => props.onOpenFile(file.path, pageViewState(page))
                }
              />
              {draft && (
                <form
                  className="review-comment-form"
                  onSubmit={(event) => {
                    event.preventDefault()
                    if (draft.text.trim() === '') return
                    setComments((all) => [
                      ...all,
                      {
                        id: crypto.randomUUID(),
                        scopeKey: key,
                        snapshotId: list.snapshotId,
                        path: file.path,
                        side: draft.anchor.side,
                        line: draft.anchor.line,
                        quote: draft.anchor.text,
                        text: draft.text.trim(),
                        transactionIds: file.transaction_ids,
                        changeSetIds: file.change_set_ids,
                      },
                    ])
                    setDraft(null)
                  }}
                >
                  <label>
                    {t('review.commentOn', { path: file.path, line: draft.anchor.line })}
                    <textarea
                      data-testid="review-comment-input"
                      value={draft.text}
                      autoFocus
                      onChange={(event) => setDraft({ ...draft, text: event.target.value })}
                    />
                  </label>
                  <div className="review-comment-actions">
                    <button type="submit" className="primary" data-testid="review-comment-add">
                      {t('review.addComment')}
                    </button>
                    <button type="button" onClick={() => setDraft(null)}>
                      {t('explorer.cancel')}
                    </button>
                  </div>
                </form>
              )}
            </>
          ) : (
            <p className="review-note review-pick">{t('review.pick')}</p>
          )}
          {(comments.length > 0 || sent) && (
            <div className="review-comments" data-testid="review-comments">
              {live.map((c) => (
                <p key={c.id} className="review-comment">
                  <code>
                    {c.path}:{c.line}
                  </code>{' '}
                  {c.text}
                </p>
              ))}
              {stale > 0 && <p className="review-note">{t('review.staleComments', { count: stale })}</p>}
              {live.length > 0 && props.sessionId !== null && (
                <button type="button" className="primary" data-testid="review-send" onClick={() => void send()}>
                  {t('review.send', { count: live.length })}
                </button>
              )}
              {sent && <p role="status">{sent}</p>}
            </div>
          )}
        </div>
      </div>
    </section>
  )
}

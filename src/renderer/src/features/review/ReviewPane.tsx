import { useCallback, useMemo, useState } from 'react'
import type { ReviewCategory } from '../../../../shared/protocol'
import { baseName, parentPath } from '../../../../shared/paths'
import { useClient } from '../../app/client-context'
import { useI18n } from '../../i18n'
import { failureMessage } from '../../ui/outcome-message'
import { DiffPane, type LineAnchor } from './DiffPane'
import { useReview, type ReviewQuery, type ReviewScope, type ReviewSort, type SubScope } from './use-review'

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

/** The Review tab (center pane): scope switcher, server-filtered file rail, one diff at a time. */
export function ReviewPane(props: {
  projectId: string
  sessionId: string | null
  initialTurnId: string | null
  /** `command`: open This turn on its "Changed by commands" filter. */
  initialSource?: 'command' | null
  onOpenFile: (path: string) => void
  onReveal: (path: string) => void
}) {
  const client = useClient()
  const { t } = useI18n()
  const [query, setQuery] = useState<ReviewQuery>({
    scope: props.initialTurnId ? 'turn' : props.sessionId === null ? 'workspace' : 'branch',
    turnId: props.initialTurnId,
    subScope: 'all',
    category: null,
    source: props.initialTurnId ? (props.initialSource ?? null) : null,
    query: '',
    sort: 'path',
  })
  const [search, setSearch] = useState('')
  const [selected, setSelected] = useState<string | null>(null)
  const [layout, setLayout] = useState<'unified' | 'split'>('unified')
  const [comments, setComments] = useState<ReviewComment[]>([])
  const [draft, setDraft] = useState<{ anchor: LineAnchor; text: string } | null>(null)
  const [sent, setSent] = useState<string | null>(null)
  const review = useReview(props.projectId, props.sessionId, query)
  const scopeKey = `${query.scope}:${query.turnId ?? ''}:${query.subScope}`
  const list = review.state

  // Changing scope, filter, query or sort discards the selection and the open diff.
  const change = (next: Partial<ReviewQuery>) => {
    setQuery((current) => ({ ...current, ...next }))
    setSelected(null)
    setDraft(null)
  }
  const file = list.kind === 'ready' ? (list.files.find((f) => f.path === selected) ?? null) : null
  const live = useMemo(
    () => comments.filter((c) => c.scopeKey === scopeKey && list.kind === 'ready' && c.snapshotId === list.snapshotId),
    [comments, scopeKey, list],
  )
  const stale = comments.length - live.length
  const onStale = useCallback(() => review.reload(), [review])

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

  return (
    <section className="review" data-testid="review" aria-label={t('review.title')}>
      <div className="review-rail">
        <div className="review-scopes" role="tablist">
          {(['turn', 'branch', 'workspace'] as ReviewScope[]).map((scope) => (
            <button
              key={scope}
              type="button"
              role="tab"
              aria-selected={query.scope === scope}
              data-testid={`review-scope-${scope}`}
              disabled={(scope === 'turn' && !query.turnId) || (scope !== 'workspace' && props.sessionId === null)}
              title={scope !== 'workspace' && props.sessionId === null ? t('review.noSession') : undefined}
              onClick={() => change({ scope })}
            >
              {t(`review.scope.${scope}`)}
            </button>
          ))}
        </div>
        {query.scope === 'workspace' && (
          <select
            aria-label={t('review.subScope')}
            value={query.subScope}
            onChange={(event) => change({ subScope: event.target.value as SubScope })}
          >
            <option value="all">{t('review.sub.all')}</option>
            <option value="unstaged">{t('review.sub.unstaged')}</option>
            <option value="staged">{t('review.sub.staged')}</option>
            <option value="branch">{t('review.sub.branch')}</option>
            <option value="commit">{t('review.sub.commit')}</option>
          </select>
        )}
        <form
          className="review-search"
          onSubmit={(event) => {
            event.preventDefault()
            change({ query: search })
          }}
        >
          <input
            data-testid="review-search"
            placeholder={t('review.search')}
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
          <select
            aria-label={t('review.sort')}
            value={query.sort}
            onChange={(event) => change({ sort: event.target.value as ReviewSort })}
          >
            <option value="path">{t('review.sortPath')}</option>
            <option value="churn">{t('review.sortChurn')}</option>
            <option value="size">{t('review.sortSize')}</option>
          </select>
        </form>
        <div className="review-chips">
          <button
            type="button"
            aria-pressed={query.category === null && query.source === null}
            onClick={() => change({ category: null, source: null })}
          >
            {t('review.all')}
          </button>
          {query.scope === 'turn' && (
            <button
              type="button"
              data-testid="review-source-command"
              aria-pressed={query.source === 'command'}
              onClick={() => change({ source: query.source === 'command' ? null : 'command' })}
            >
              {t('review.commands')}
            </button>
          )}
          {CATEGORIES.map((category) => (
            <button
              key={category}
              type="button"
              data-testid={`review-category-${category}`}
              aria-pressed={query.category === category}
              onClick={() => change({ category })}
            >
              {t(`review.category.${category}`)}
            </button>
          ))}
        </div>
        {review.staleNotice && (
          <p className="review-note" role="status">
            {t('review.staleReloaded')}
          </p>
        )}
        {list.kind === 'loading' && <p className="review-note">{t('review.loading')}</p>}
        {list.kind === 'error' && (
          <p className="review-note" role="alert">
            {list.message}
          </p>
        )}
        {list.kind === 'ready' && (
          <>
            <p className="review-totals" data-testid="review-totals">
              {t('review.totals', {
                files: list.totals.files,
                added: list.totals.added ?? '—',
                removed: list.totals.removed ?? '—',
              })}
            </p>
            <ul className="review-files" data-testid="review-files">
              {list.files.map((row) => (
                <li key={row.path}>
                  <button
                    type="button"
                    className="review-file"
                    data-testid="review-file"
                    data-path={row.path}
                    data-source={row.source}
                    aria-current={row.path === selected}
                    onClick={() => {
                      setSelected(row.path)
                      setDraft(null)
                    }}
                  >
                    <span className="review-file-name">
                      {parentPath(row.path) !== '' && <span className="file-dir">{parentPath(row.path)}/</span>}
                      <strong>{baseName(row.path)}</strong>
                    </span>
                    <span className="review-file-stats">
                      <span className="stat-added">+{row.added ?? '—'}</span>
                      <span className="stat-removed">−{row.removed ?? '—'}</span>
                    </span>
                  </button>
                </li>
              ))}
            </ul>
            {list.next !== null && (
              <button type="button" data-testid="review-more" onClick={review.loadMore}>
                {t('review.loadMore')}
              </button>
            )}
          </>
        )}
      </div>
      <div className="review-main">
        {file && list.kind === 'ready' ? (
          <>
            <div className="review-file-bar">
              <strong>{file.path}</strong>
              <span className="review-file-meta">
                {t(`review.op.${file.operation}`)} · {t(`review.source.${file.source}`)}
              </span>
              <span className="review-spacer" />
              <button type="button" onClick={() => setLayout(layout === 'unified' ? 'split' : 'unified')}>
                {layout === 'unified' ? t('review.split') : t('review.unified')}
              </button>
              {file.operation !== 'delete' && (
                <>
                  <button type="button" data-testid="review-open" onClick={() => props.onOpenFile(file.path)}>
                    {t('review.open')}
                  </button>
                  <button type="button" data-testid="review-reveal" onClick={() => props.onReveal(file.path)}>
                    {t('review.reveal')}
                  </button>
                </>
              )}
            </div>
            <DiffPane
              key={`${list.snapshotId}:${file.path}`}
              owner={
                props.sessionId === null
                  ? { project_id: props.projectId }
                  : { project_id: props.projectId, session_id: props.sessionId }
              }
              snapshotId={list.snapshotId}
              file={file}
              layout={layout}
              onComment={(anchor) => setDraft({ anchor, text: '' })}
              onStale={onStale}
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
                      scopeKey,
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
          <p className="review-note">{t('review.pick')}</p>
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
    </section>
  )
}

import { randomUUID } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import {
  CONTENT_SEARCH_PAGE_SIZE,
  fail,
  ok,
  type ContentFileMatches,
  type ContentSearchStop,
  type Outcome,
  type ParsedPayloadOf,
  type ResultOf,
} from '../../../shared/protocol'
import { createCursorSigner, type CursorSigner } from '../paging'
import type { ProjectRoots } from './containment'
import { bundledRipgrep, ripgrepArgs, runRipgrep } from './content-search-rg'
import type { ContentFailure, ContentQuery, ContentSearchBounds, ContentSink } from './content-search-types'
import { runWalkSearch } from './content-search-walk'
import { DEFAULT_PATTERN_BUDGET_MS } from './pattern-matcher'
import { dataDirPath } from './walk'

type ContentResult = ResultOf<'files.search_content'>
type ContentRequest = ParsedPayloadOf<'files.search_content'>

/**
 * VS Code's search view shows 20 000 results at most; so do we. The other bounds keep one
 * preview line, one file and one search small whatever the tree holds.
 */
export const DEFAULT_CONTENT_BOUNDS: ContentSearchBounds = {
  maxFileBytes: 2 * 1024 * 1024,
  matchesPerFile: 100,
  maxMatches: 20_000,
  previewChars: 250,
  previewContextChars: 40,
  rangesPerLine: 20,
  totalMs: 30_000,
  regexBudgetMs: DEFAULT_PATTERN_BUDGET_MS,
}

/** Finished and running searches kept for their cursors (each holds ≤ `maxMatches` lines). */
const KEPT_RUNS = 16
const KEPT_RUNS_MS = 10 * 60 * 1000

/** One search: it keeps filling `files` while it runs; pages read it through their cursors. */
interface ContentRun {
  readonly id: string
  readonly projectId: string
  readonly queryKey: string
  readonly engine: ContentResult['engine']
  readonly files: ContentFileMatches[]
  matchedLines: number
  done: boolean
  stopped: ContentSearchStop
  failure: ContentFailure | undefined
  readonly controller: AbortController
  readonly waiters: Set<() => void>
}

export interface ContentSearchOptions {
  /** The ripgrep binary; null searches with the built-in walk (tests of the fallback). */
  readonly ripgrep?: string | null
  readonly bounds?: Partial<ContentSearchBounds>
}

export interface ContentSearch {
  search(projectId: string, roots: ProjectRoots, request: ContentRequest): Promise<Outcome<ContentResult>>
  /** Stops every running search (its child process or worker ends). */
  dispose(): void
}

export function createContentSearch(options: ContentSearchOptions = {}): ContentSearch {
  const ripgrep = options.ripgrep === undefined ? bundledRipgrep() : options.ripgrep
  const bounds: ContentSearchBounds = { ...DEFAULT_CONTENT_BOUNDS, ...options.bounds }
  const signer = createCursorSigner()
  const runs = new LRUCache<string, ContentRun>({ max: KEPT_RUNS, ttl: KEPT_RUNS_MS })
  /** The search each project is running: a new query stops it (VS Code cancels on every keystroke). */
  const running = new Map<string, ContentRun>()

  const notify = (run: ContentRun) => {
    for (const wake of [...run.waiters]) wake()
  }
  const finish = (run: ContentRun, stopped: ContentSearchStop) => {
    if (run.done) return
    run.done = true
    run.stopped = stopped
    run.controller.abort()
    if (running.get(run.projectId) === run) running.delete(run.projectId)
    notify(run)
  }
  /** Resolves once the run holds `count` files or has ended. */
  const filled = (run: ContentRun, count: number) =>
    new Promise<void>((resolve) => {
      if (run.done || run.files.length >= count) return resolve()
      const wake = () => {
        if (!run.done && run.files.length < count) return
        run.waiters.delete(wake)
        resolve()
      }
      run.waiters.add(wake)
    })

  function start(projectId: string, roots: ProjectRoots, query: ContentQuery, queryKey: string): ContentRun {
    const previous = running.get(projectId)
    if (previous) finish(previous, 'superseded')
    const run: ContentRun = {
      id: `snp_${randomUUID()}`,
      projectId,
      queryKey,
      engine: ripgrep ? 'ripgrep' : 'walk',
      files: [],
      matchedLines: 0,
      done: false,
      stopped: null,
      failure: undefined,
      controller: new AbortController(),
      waiters: new Set(),
    }
    running.set(projectId, run)
    runs.set(run.id, run)
    const sink: ContentSink = {
      file(found) {
        if (run.done) return
        run.files.push(found)
        run.matchedLines += found.matches.length
        notify(run)
        if (run.matchedLines >= bounds.maxMatches) finish(run, 'limit')
      },
      fail(failure) {
        run.failure ??= failure
      },
    }
    const deadline = setTimeout(() => finish(run, 'time'), bounds.totalMs)
    deadline.unref()
    const signal = run.controller.signal
    const engine = ripgrep
      ? runRipgrep(
          ripgrep,
          roots.root,
          ripgrepArgs(query, bounds, dataDirPath(roots.root, roots.dataDir)),
          bounds,
          sink,
          signal,
        )
      : runWalkSearch(roots, query, bounds, sink, signal)
    engine
      .catch((error: unknown) =>
        sink.fail({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
      )
      .finally(() => {
        clearTimeout(deadline)
        finish(run, null)
      })
    return run
  }

  function page(run: ContentRun, offset: number): ContentResult {
    const end = Math.min(run.files.length, offset + CONTENT_SEARCH_PAGE_SIZE)
    const more = end < run.files.length || !run.done
    return {
      snapshot_id: run.id,
      files: run.files.slice(offset, end),
      next_cursor: more
        ? signer.sign({
            query_kind: 'content_search',
            snapshot_id: run.id,
            project_id: run.projectId,
            basis: run.id,
            query: run.queryKey,
            offset: end,
          })
        : null,
      page_size: CONTENT_SEARCH_PAGE_SIZE,
      done: run.done,
      stopped: run.stopped,
      engine: run.engine,
    }
  }

  return {
    async search(projectId, roots, request) {
      const query = queryOf(request)
      const queryKey = JSON.stringify(query)
      if (request.cursor !== undefined) return nextPage(signer, runs, projectId, queryKey, request.cursor, filled, page)
      const refused = refuse(query)
      if (refused) return refused
      const run = start(projectId, roots, query, queryKey)
      await filled(run, CONTENT_SEARCH_PAGE_SIZE)
      if (run.failure && run.files.length === 0) return failureOutcome(run.failure, query)
      return ok(page(run, 0))
    },
    dispose() {
      for (const run of [...running.values()]) finish(run, 'superseded')
    },
  }
}

async function nextPage(
  signer: CursorSigner,
  runs: LRUCache<string, ContentRun>,
  projectId: string,
  queryKey: string,
  cursor: string,
  filled: (run: ContentRun, count: number) => Promise<void>,
  page: (run: ContentRun, offset: number) => ContentResult,
): Promise<Outcome<ContentResult>> {
  const stale = (why: string) =>
    fail('STALE_SNAPSHOT', 'These search results are gone; search again from the first page.', { why })
  const claims = signer.open(cursor)
  if (!claims) return stale('unrecognised-cursor')
  if (claims.query_kind !== 'content_search' || claims.project_id !== projectId || claims.query !== queryKey) {
    return stale('cursor-for-another-query')
  }
  const run = runs.get(claims.snapshot_id)
  if (!run) return fail('STALE_SNAPSHOT', 'These search results expired; search again.', { reason: 'evicted' })
  await filled(run, claims.offset + CONTENT_SEARCH_PAGE_SIZE)
  return ok(page(run, claims.offset))
}

/** The query as the engines run it: globs ending in `/` name a folder and everything in it. */
function queryOf(request: ContentRequest): ContentQuery {
  const folder = (glob: string) => (glob.endsWith('/') ? `${glob}**` : glob)
  return {
    text: request.query,
    regex: request.regex ?? false,
    wholeWord: request.whole_word ?? false,
    matchCase: request.match_case ?? false,
    include: (request.include ?? []).map(folder),
    exclude: (request.exclude ?? []).map(folder),
  }
}

/** A query is one line of text; control characters would change what ripgrep is asked. */
function refuse(query: ContentQuery): Outcome<never> | undefined {
  const control = /[\0\r\n]/
  if (control.test(query.text)) {
    return fail('INVALID_REQUEST', 'A search query is one line of text without NUL characters.', { field: 'query' })
  }
  const glob = [...query.include, ...query.exclude].find((pattern) => control.test(pattern))
  if (glob !== undefined) {
    const detail = 'a glob is one line of text without NUL characters'
    return fail('INVALID_REQUEST', `Not a valid glob pattern: ${detail}.`, { reason: 'invalid-glob', detail })
  }
  return undefined
}

function failureOutcome(failure: ContentFailure, query: ContentQuery): Outcome<never> {
  switch (failure.kind) {
    case 'invalid':
      return failure.what === 'regex'
        ? fail('INVALID_REQUEST', `Not a valid regular expression: ${failure.message}`, {
            reason: 'invalid-regex',
            detail: failure.message,
          })
        : fail('INVALID_REQUEST', `Not a valid glob pattern: ${failure.message}`, {
            reason: 'invalid-glob',
            detail: failure.message,
          })
    case 'too-slow':
      return fail(
        'TOO_LARGE',
        `Matching /${query.text.slice(0, 200)}/ took longer than ${failure.budgetMs / 1000} s, so the search stopped. ` +
          'The pattern most likely backtracks catastrophically (nested unbounded quantifiers such as (a+)+); simplify it.',
        { reason: 'time', budget_ms: failure.budgetMs },
      )
    case 'failed':
      return fail('INTERNAL', `The search failed: ${failure.message}`)
  }
}

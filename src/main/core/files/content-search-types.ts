import type { ContentFileMatches } from '../../../shared/protocol'

/** One content query as the engines run it (validated and bounded before). */
export interface ContentQuery {
  readonly text: string
  readonly regex: boolean
  readonly wholeWord: boolean
  readonly matchCase: boolean
  readonly include: readonly string[]
  readonly exclude: readonly string[]
}

/** Every bound of one search; hostile trees and queries hit one of these, never the machine's limits. */
export interface ContentSearchBounds {
  /** Larger files are skipped (they are rarely source; a minified bundle drowns the results). */
  readonly maxFileBytes: number
  readonly matchesPerFile: number
  /** Matching lines across the whole search; past it the search stops with `stopped: limit`. */
  readonly maxMatches: number
  readonly previewChars: number
  readonly previewContextChars: number
  readonly rangesPerLine: number
  /** Wall time of the whole search; past it the search stops with `stopped: time`. */
  readonly totalMs: number
  /** Matching time the built-in walk may spend on a regex (the pattern worker's budget). */
  readonly regexBudgetMs: number
}

/** Why a search could not run at all: the query is at fault, or the engine failed. */
export type ContentFailure =
  | { readonly kind: 'invalid'; readonly what: 'regex' | 'glob'; readonly message: string }
  | { readonly kind: 'too-slow'; readonly budgetMs: number }
  | { readonly kind: 'failed'; readonly message: string }

/** Where an engine streams what it finds. */
export interface ContentSink {
  /** A file with at least one match, its matches in line order. */
  file(found: ContentFileMatches): void
  fail(failure: ContentFailure): void
}

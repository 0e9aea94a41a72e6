/** Messages between the pattern matcher (main side) and its worker; types only, so the worker imports nothing at run time. */

/** A match within a line's returned text: [start, end) in UTF-16 code units. */
export type LineRange = readonly [number, number]

export type PatternJob =
  | {
      readonly id: number
      readonly kind: 'compile'
      /** A JavaScript regular expression source (grep's pattern), tested against each line. */
      readonly regex?: string
      /**
       * A picomatch glob, or several (a subject matches any); `basename` matches a slash-free
       * pattern against the last segment only.
       */
      readonly glob?: { readonly pattern: string | readonly string[]; readonly basename: boolean }
    }
  /** Which subjects the compiled glob matches (answered as indices, in order). */
  | { readonly id: number; readonly kind: 'paths'; readonly subjects: readonly string[] }
  /** Lines of each text the compiled regex matches, in order, at most `maxMatches`. */
  | {
      readonly id: number
      readonly kind: 'lines'
      readonly texts: readonly string[]
      readonly maxMatches: number
      readonly maxLineChars: number
      /**
       * Also answer where on each line the regex matched (at most `max` ranges a line), the text
       * then cut to start `contextChars` before the first match so a match deep in a long line shows.
       */
      readonly ranges?: { readonly max: number; readonly contextChars: number }
    }

export type PatternReply =
  | { readonly id: number; readonly kind: 'compiled' }
  | { readonly id: number; readonly kind: 'invalid'; readonly what: 'regex' | 'glob'; readonly message: string }
  | { readonly id: number; readonly kind: 'paths'; readonly matched: readonly number[] }
  /** Progress of a `lines` job: the worker is now matching `texts[file]`. */
  | { readonly id: number; readonly kind: 'at'; readonly file: number }
  | {
      readonly id: number
      readonly kind: 'lines'
      readonly matches: ReadonlyArray<{
        readonly file: number
        readonly line: number
        readonly text: string
        readonly column?: number
        readonly ranges?: readonly LineRange[]
      }>
      /** More lines matched than `maxMatches`. */
      readonly more: boolean
    }
  | { readonly id: number; readonly kind: 'failed'; readonly message: string }

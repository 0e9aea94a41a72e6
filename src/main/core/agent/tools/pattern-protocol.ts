/** Messages between the pattern matcher (main side) and its worker; types only, so the worker imports nothing at run time. */
export type PatternJob =
  | {
      readonly id: number
      readonly kind: 'compile'
      /** A JavaScript regular expression source (grep's pattern), tested against each line. */
      readonly regex?: string
      /** A picomatch glob; `basename` matches a slash-free pattern against the last segment only. */
      readonly glob?: { readonly pattern: string; readonly basename: boolean }
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
      readonly matches: ReadonlyArray<{ readonly file: number; readonly line: number; readonly text: string }>
      /** More lines matched than `maxMatches`. */
      readonly more: boolean
    }
  | { readonly id: number; readonly kind: 'failed'; readonly message: string }

import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { delimiter, isAbsolute, join } from 'node:path'
import { createInterface } from 'node:readline'
import type { ContentMatch } from '../../../shared/protocol'
import type { ContentQuery, ContentSearchBounds, ContentSink } from './content-search-types'

/**
 * The ripgrep binary that the `@vscode/ripgrep` package's per-platform optional dependency ships
 * inside its registry tarball (no download at install), else an `rg` on PATH, else null (the
 * built-in walk searches). Resolved once per process.
 */
let resolvedRipgrep: string | null | undefined

export function bundledRipgrep(): string | null {
  if (resolvedRipgrep !== undefined) return resolvedRipgrep
  resolvedRipgrep = null
  const name = process.platform === 'win32' ? 'rg.exe' : 'rg'
  try {
    // In a packaged app the binary must live outside the asar archive to be executable.
    const found = createRequire(__filename)
      .resolve(`@vscode/ripgrep-${process.platform}-${process.arch}/bin/${name}`)
      .replace(`app.asar${'/'}`, `app.asar.unpacked/`)
    if (existsSync(found)) resolvedRipgrep = found
  } catch {
    // not installed for this platform
  }
  resolvedRipgrep ??= ripgrepOnPath(process.env.PATH ?? '', name)
  return resolvedRipgrep
}

/**
 * An `rg` in one of PATH's absolute folders. A relative entry (`.`, `bin`, an empty one) is
 * skipped: it names a folder relative to wherever the search runs — the project, so a repository
 * that ships its own `rg` would have it run.
 */
export function ripgrepOnPath(pathEnv: string, name: string): string | null {
  for (const folder of pathEnv.split(delimiter)) {
    if (isAbsolute(folder) && existsSync(join(folder, name))) return join(folder, name)
  }
  return null
}

/** Cuts a line to `maxChars` starting `contextChars` before its first match (same rule as the pattern worker's). */
export function clipPreview(
  line: string,
  found: ReadonlyArray<readonly [number, number]>,
  bounds: Pick<ContentSearchBounds, 'previewChars' | 'previewContextChars' | 'rangesPerLine'>,
): Omit<ContentMatch, 'line'> {
  const first = found[0]?.[0] ?? 0
  const from = first > bounds.previewContextChars ? first - bounds.previewContextChars : 0
  const to = Math.min(line.length, from + bounds.previewChars)
  const ranges = found
    .slice(0, bounds.rangesPerLine)
    .filter(([start]) => start < to)
    .map(([start, end]): [number, number] => [start - from, Math.min(end, to) - from])
  return { column: first + 1, preview: line.slice(from, to), preview_cut: from > 0, ranges }
}

type RgText = { text?: string; bytes?: string }
type RgMessage =
  | { type: 'begin'; data: { path: RgText } }
  | {
      type: 'match'
      data: {
        path: RgText
        lines: RgText
        line_number: number | null
        submatches: Array<{ start: number; end: number }>
      }
    }
  | { type: 'end'; data: { path: RgText } }
  | { type: 'summary' | 'context'; data: unknown }

/** The arguments for one query: nothing in them comes from the repository's own configuration. */
export function ripgrepArgs(query: ContentQuery, bounds: ContentSearchBounds, dataRel: string): string[] {
  const args = [
    '--json',
    // RIPGREP_CONFIG_PATH could add any flag (--pre runs a program): never read a config file.
    '--no-config',
    '--hidden',
    // .gitignore applies outside a git work tree too, as in the explorer and the name search.
    '--no-require-git',
    // Only git's rules hide files, as in the walk, the explorer and the name search: a repository's
    // own .ignore / .rgignore (ripgrep-only files) must not hide anything from this search.
    '--no-ignore-dot',
    `--max-filesize=${bounds.maxFileBytes}`,
    // One more than shown, so a file with more lines than the bound says so.
    `--max-count=${bounds.matchesPerFile + 1}`,
    '--glob=!.git',
    '--glob=!.retrace-tmp-mtx_*',
  ]
  // Retrace's own data directory, when it sits inside the project, is never searched.
  if (dataRel !== '' && !dataRel.startsWith('..')) args.push(`--glob=!/${dataRel}`)
  for (const glob of query.include) args.push(`--glob=${glob}`)
  for (const glob of query.exclude) args.push(`--glob=!${glob}`)
  if (!query.regex) args.push('--fixed-strings')
  // The default engine is linear-time; PCRE2 only for what it cannot do (look-around, back-references).
  else args.push('--engine=auto')
  args.push(query.matchCase ? '--case-sensitive' : '--ignore-case')
  if (query.wholeWord) args.push('--word-regexp')
  args.push('--regexp', query.text, '--', '.')
  return args
}

/**
 * Runs ripgrep over the project root and streams each file's matches into `sink`. ripgrep never
 * follows symlinks unless asked, skips binary files (a NUL byte) and honours `.gitignore`,
 * `.git/info/exclude` and the global excludes file (read from git's config files, never by running
 * git). `signal` kills the child at once.
 */
export function runRipgrep(
  binary: string,
  root: string,
  args: readonly string[],
  bounds: ContentSearchBounds,
  sink: ContentSink,
  signal: AbortSignal,
): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(binary, args, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, RIPGREP_CONFIG_PATH: '' },
    })
    let stderr = ''
    let current: { path: string; matches: ContentMatch[]; more: boolean } | undefined
    let settled = false
    const kill = () => {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
    signal.addEventListener('abort', kill, { once: true })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 8192) stderr += chunk
    })
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity })
    lines.on('line', (raw) => {
      if (signal.aborted) return
      let message: RgMessage
      try {
        message = JSON.parse(raw) as RgMessage
      } catch {
        return
      }
      switch (message.type) {
        case 'begin': {
          const path = message.data.path.text
          // A path that is not UTF-8 cannot cross the protocol (the explorer leaves it out too).
          current = path === undefined ? undefined : { path: path.replace(/^\.\//, ''), matches: [], more: false }
          return
        }
        case 'match': {
          if (!current || message.data.line_number === null) return
          if (current.matches.length >= bounds.matchesPerFile) {
            current.more = true
            return
          }
          current.matches.push(matchOf(message.data, bounds))
          return
        }
        case 'end': {
          if (current && current.matches.length > 0) sink.file(current)
          current = undefined
          return
        }
        default:
          return
      }
    })
    const finish = (code: number | null) => {
      if (settled) return
      settled = true
      signal.removeEventListener('abort', kill)
      // Exit 2 with a message about the pattern or a glob: the query is at fault, not the files.
      if (!signal.aborted && code === 2) {
        // Only ripgrep's own sentences about the query count: a file's read error (a path that
        // happens to contain "regex") is not the query's fault.
        const glob = /^rg: error parsing glob (.*)$/m.exec(stderr)
        if (glob) sink.fail({ kind: 'invalid', what: 'glob', message: (glob[1] ?? '').slice(0, 300) })
        else if (/^rg: regex (could not be compiled|parse error)/m.test(stderr)) {
          // "error: unclosed group": the default engine's reason, without its ASCII-art frame.
          const reason = /^error: (.*)$/m.exec(stderr)?.[1] ?? stderr.split('\n')[0] ?? ''
          sink.fail({ kind: 'invalid', what: 'regex', message: reason.slice(0, 300) })
        }
      }
      resolve()
    }
    lines.on('close', () => {
      if (child.exitCode !== null || child.signalCode !== null) finish(child.exitCode)
      else child.once('exit', (code) => finish(code))
    })
    child.on('error', (error) => {
      sink.fail({ kind: 'failed', message: `ripgrep could not start: ${error.message}` })
      finish(null)
    })
  })
}

function matchOf(
  data: { lines: RgText; line_number: number | null; submatches: Array<{ start: number; end: number }> },
  bounds: ContentSearchBounds,
): ContentMatch {
  const bytes =
    data.lines.text !== undefined ? Buffer.from(data.lines.text, 'utf8') : Buffer.from(data.lines.bytes ?? '', 'base64')
  const line = bytes.toString('utf8').replace(/\r?\n$/, '')
  // ripgrep's offsets are bytes; the preview's are UTF-16 code units.
  const unitsAt = (offset: number) => bytes.subarray(0, offset).toString('utf8').length
  const found = data.submatches
    .slice(0, bounds.rangesPerLine)
    .map((sub): [number, number] => [unitsAt(sub.start), unitsAt(sub.end)])
  return { line: data.line_number ?? 1, ...clipPreview(line, found, bounds) }
}

import { relative, sep } from 'node:path'
import { watch, type FSWatcher } from 'chokidar'
import type { Disposable } from '../../../shared/disposable'
import { JOURNAL_TEMP_PREFIX } from '../journal'
import { createIgnoreRules } from './ignore-rules'

export interface WatchLimits {
  /** Changes arriving within this window are announced together. */
  readonly debounceMs: number
  /** At most this many paths per announcement; past it the batch says `truncated`. */
  readonly maxPathsPerEvent: number
  /** Folder depth below the root that is watched. */
  readonly depth: number
}

export const DEFAULT_WATCH_LIMITS: WatchLimits = { debounceMs: 150, maxPathsPerEvent: 500, depth: 32 }

export interface ChangeBatch {
  readonly paths: string[]
  readonly truncated: boolean
}

/**
 * Watches one project folder and reports root-relative paths that were created, changed or
 * removed, in debounced, bounded batches. A UI hint only: it never reads content and never touches
 * the journal. Ignored: whatever `.gitignore` ignores, `.git`, the data directory, journal temps.
 */
export function watchProject(options: {
  root: string
  dataDir: string
  limits?: Partial<WatchLimits>
  onChange: (batch: ChangeBatch) => void
  onError: (error: unknown) => void
}): Disposable & { readonly ready: Promise<void> } {
  const limits = { ...DEFAULT_WATCH_LIMITS, ...options.limits }
  const { root } = options
  const toRelative = (abs: string) => relative(root, abs).split(sep).join('/')
  const dataDirRelative = toRelative(options.dataDir)
  const dataDirInside = dataDirRelative !== '' && !dataDirRelative.startsWith('..')
  const rules = createIgnoreRules(root, {
    alwaysIgnored: (path) => {
      const name = path.slice(path.lastIndexOf('/') + 1)
      return (
        path === '.git' ||
        path.startsWith('.git/') ||
        path.includes('/.git/') ||
        name === '.git' ||
        name.startsWith(JOURNAL_TEMP_PREFIX) ||
        (dataDirInside && (path === dataDirRelative || path.startsWith(`${dataDirRelative}/`)))
      )
    },
  })

  let pending = new Set<string>()
  let truncated = false
  let timer: NodeJS.Timeout | undefined
  let closed = false
  const flush = () => {
    timer = undefined
    if (closed || (pending.size === 0 && !truncated)) return
    const batch = { paths: [...pending].sort(), truncated }
    pending = new Set()
    truncated = false
    options.onChange(batch)
  }
  const record = (abs: string) => {
    const path = toRelative(abs)
    if (path === '' || path.startsWith('..')) return
    if (path === '.gitignore' || path.endsWith('/.gitignore')) {
      rules.forget(path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '')
    }
    if (pending.size < limits.maxPathsPerEvent) pending.add(path)
    else truncated = true
    timer ??= setTimeout(flush, limits.debounceMs)
  }

  const watcher: FSWatcher = watch(root, {
    ignoreInitial: true,
    persistent: false,
    followSymlinks: false,
    depth: limits.depth,
    ignorePermissionErrors: true,
    ignored: (abs, stats) => {
      const path = toRelative(abs)
      if (path.startsWith('..')) return true
      return rules.ignores(path, stats ? stats.isDirectory() : undefined)
    },
  })
  watcher.on('all', (_event, abs) => record(abs))
  // Running out of inotify watches (ENOSPC) and similar: reported once each, watching goes on.
  const reported = new Set<string>()
  watcher.on('error', (error) => {
    const code = (error as NodeJS.ErrnoException).code ?? String(error)
    if (reported.has(code)) return
    reported.add(code)
    options.onError(error)
  })
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()))

  return {
    ready,
    dispose() {
      if (closed) return
      closed = true
      if (timer) clearTimeout(timer)
      void watcher.close()
    },
  }
}

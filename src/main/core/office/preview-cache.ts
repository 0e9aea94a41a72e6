import { createHash } from 'node:crypto'
import { mkdir, readdir, rename, stat, unlink, utimes } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Converted PDFs in the data directory, one file per (source revision, engine version): opening
 * the same revision again costs a stat, an edit produces a new revision and so a new entry. Least
 * recently used entries go once the cache holds more than its byte budget.
 */
export interface PreviewCache {
  keyOf(revision: string, engineVersion: string): string
  /** The cached PDF's path and size, refreshed as recently used; undefined when absent. */
  get(key: string): Promise<{ path: string; size: number } | undefined>
  /** Moves a finished PDF into the cache (same file system) and trims the cache. */
  put(key: string, pdfPath: string): Promise<{ path: string; size: number }>
}

export function createPreviewCache(dir: string, maxBytes = 512 * 1024 * 1024): PreviewCache {
  const pathOf = (key: string) => join(dir, `${key}.pdf`)
  async function trim(keep: string) {
    const entries = await Promise.all(
      (await readdir(dir))
        .filter((name) => name.endsWith('.pdf'))
        .map(async (name) => {
          const info = await stat(join(dir, name)).catch(() => undefined)
          return info ? { path: join(dir, name), size: info.size, used: info.mtimeMs } : undefined
        }),
    )
    const live = entries.filter((e): e is { path: string; size: number; used: number } => e !== undefined)
    let total = live.reduce((sum, e) => sum + e.size, 0)
    for (const entry of live.sort((a, b) => a.used - b.used)) {
      if (total <= maxBytes) break
      if (entry.path === keep) continue
      await unlink(entry.path).catch(() => undefined)
      total -= entry.size
    }
  }
  return {
    keyOf: (revision, engineVersion) =>
      createHash('sha256').update(`preview-v1\u0000${revision}\u0000${engineVersion}`).digest('hex'),
    async get(key) {
      const path = pathOf(key)
      const info = await stat(path).catch(() => undefined)
      if (!info?.isFile()) return undefined
      const now = new Date()
      await utimes(path, now, now).catch(() => undefined)
      return { path, size: info.size }
    },
    async put(key, pdfPath) {
      await mkdir(dir, { recursive: true, mode: 0o700 })
      const path = pathOf(key)
      await rename(pdfPath, path)
      await trim(path)
      return { path, size: (await stat(path)).size }
    },
  }
}

import { readFile, realpath, stat } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { contentType } from 'mime-types'
import { isInside } from '../core/platform'

export type StaticFile =
  | { kind: 'file'; path: string; mime: string; bytes: Buffer; isDocument: boolean }
  | { kind: 'missing' }
  | { kind: 'refused' }

/**
 * Maps a URL path onto the built renderer directory. Anything that resolves outside it (encoded
 * `..`, symlinks) is refused; `/` is the app document.
 */
export async function resolveStaticFile(rendererDir: string, urlPath: string): Promise<StaticFile> {
  let decoded: string
  try {
    decoded = decodeURIComponent(urlPath)
  } catch {
    return { kind: 'refused' }
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return { kind: 'refused' }
  const relative = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '')
  if (relative.split('/').some((segment) => segment === '..')) return { kind: 'refused' }
  const root = await realpath(rendererDir)
  let real: string
  try {
    real = await realpath(join(root, relative))
  } catch {
    return { kind: 'missing' }
  }
  if (!isInside(root, real)) return { kind: 'refused' }
  if (!(await stat(real)).isFile()) return { kind: 'missing' }
  return {
    kind: 'file',
    path: real,
    mime: contentType(extname(real)) || 'application/octet-stream',
    bytes: await readFile(real),
    isDocument: extname(real) === '.html',
  }
}

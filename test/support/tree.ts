import { createHash } from 'node:crypto'
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'

/** Every path under `root` with its type, mode and content digest: equal fingerprints, equal trees. */
export function treeFingerprint(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name)
      const path = rel ? `${rel}/${name}` : name
      const info = lstatSync(abs)
      if (info.isSymbolicLink()) out[path] = `link:${readlinkSync(abs)}`
      else if (info.isDirectory()) {
        out[path] = `dir:${info.mode.toString(8)}`
        walk(abs, path)
      } else if (info.isFile()) {
        out[path] = `file:${info.mode.toString(8)}:${createHash('sha256').update(readFileSync(abs)).digest('hex')}`
      } else out[path] = `special:${info.mode.toString(8)}`
    }
  }
  walk(root, '')
  return out
}

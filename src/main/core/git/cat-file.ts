import { ok, type Outcome } from '../../../shared/protocol'
import { git } from './runner'

/** The bytes of one blob object (HEAD or index content). */
export function catBlob(root: string, oid: string): Promise<Outcome<Buffer>> {
  return git(root, ['cat-file', 'blob', oid], 'cat-file')
}

/**
 * The bytes of many blob objects in one `git cat-file --batch` run (one process, not one per
 * object). Objects git does not have are absent from the map.
 */
export async function catBlobs(root: string, oids: readonly string[]): Promise<Outcome<Map<string, Buffer>>> {
  const unique = [...new Set(oids)]
  const found = new Map<string, Buffer>()
  if (unique.length === 0) return ok(found)
  const out = await git(root, ['cat-file', '--batch'], 'cat-file', { stdin: `${unique.join('\n')}\n` })
  if (out.kind === 'error') return out
  const bytes = out.result
  let at = 0
  for (const oid of unique) {
    const end = bytes.indexOf(0x0a, at)
    if (end < 0) break
    // "<oid> <type> <size>" or "<name> missing"
    const header = bytes.subarray(at, end).toString('utf8').split(' ')
    at = end + 1
    if (header[1] === 'missing' || header.length < 3) continue
    const size = Number(header[2])
    found.set(oid, bytes.subarray(at, at + size))
    at += size + 1
  }
  return ok(found)
}

/** The sizes of many objects in one `git cat-file --batch-check` run; objects git lacks are absent. */
export async function catBlobSizes(root: string, oids: readonly string[]): Promise<Outcome<Map<string, number>>> {
  const unique = [...new Set(oids)]
  const sizes = new Map<string, number>()
  if (unique.length === 0) return ok(sizes)
  const out = await git(root, ['cat-file', '--batch-check'], 'cat-file', { stdin: `${unique.join('\n')}\n` })
  if (out.kind === 'error') return out
  // One line per input, in input order; keyed by the name asked for (which may be abbreviated).
  const lines = out.result.toString('utf8').split('\n')
  for (const [index, oid] of unique.entries()) {
    const [, type, size] = (lines[index] ?? '').split(' ')
    if (type && type !== 'missing' && size !== undefined) sizes.set(oid, Number(size))
  }
  return ok(sizes)
}

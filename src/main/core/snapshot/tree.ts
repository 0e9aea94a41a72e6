import { createHash } from 'node:crypto'
import { fail, failureReason, ok, type Outcome } from '../../../shared/protocol'
import { shadowGit, splitNul, type Shadow } from './repo'
import type { SnapshotState } from './types'

/** Keeps one `ls-tree` command line well under every platform's argument limit. */
const ARGUMENT_BYTES = 96 * 1024

const HASH = /^[0-9a-f]{40}([0-9a-f]{24})?$/

export function isSnapshotHash(hash: string): boolean {
  return HASH.test(hash)
}

/** The mode and object of a tree entry as a snapshot state. */
export function stateOf(mode: string, oid: string, size: number): SnapshotState {
  if (mode === '120000') return { kind: 'symlink', oid, size }
  if (mode === '160000') return { kind: 'submodule', oid }
  return { kind: 'regular', oid, mode: mode === '100755' ? '100755' : '100644', size }
}

/** git's object id of a blob with these bytes: compares a file on disk with a snapshot without git. */
export function blobOid(bytes: Uint8Array, format: 'sha1' | 'sha256' = 'sha1'): string {
  return createHash(format).update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
}

/** Reading a snapshot failed because its objects are gone (gc'd after 7 days, or pruned by the user). */
export function snapshotGone(hash: string) {
  return fail('UNAVAILABLE', 'This step snapshot is no longer stored (it expired or its objects were pruned).', {
    reason: 'snapshot-expired',
    hash,
  })
}

/**
 * The entries of exactly these paths in a snapshot tree (absent paths are simply missing from the
 * map). A pathspec also matches everything below a folder of that name; only exact names count.
 */
export async function entriesAt(
  shadow: Shadow,
  hash: string,
  paths: readonly string[],
): Promise<Outcome<Map<string, SnapshotState>>> {
  const wanted = new Set(paths)
  const found = new Map<string, { mode: string; oid: string; size: number }>()
  for (const chunk of chunksByBytes(paths)) {
    const listed = await shadowGit(
      shadow,
      ['ls-tree', '-r', '-z', '--long', '--full-tree', hash, '--', ...chunk],
      'ls-tree',
    )
    if (listed.kind === 'error') return failureReason(listed.error) === 'missing-object' ? snapshotGone(hash) : listed
    for (const line of splitNul(listed.result.stdout)) {
      const entry = parseLongEntry(line)
      if (entry && wanted.has(entry.path)) found.set(entry.path, entry)
    }
  }
  return ok(new Map([...found].map(([path, e]) => [path, stateOf(e.mode, e.oid, e.size)])))
}

/** `<mode> SP <type> SP <object> SP+ <size> TAB <path>` (ls-tree --long). */
function parseLongEntry(line: string): { path: string; mode: string; oid: string; size: number } | null {
  const tab = line.indexOf('\t')
  if (tab < 0) return null
  const [mode = '', , oid = '', size = '-'] = line.slice(0, tab).split(/ +/)
  return { path: line.slice(tab + 1), mode, oid, size: size === '-' ? 0 : Number(size) }
}

function* chunksByBytes(paths: readonly string[]): Generator<string[]> {
  let chunk: string[] = []
  let bytes = 0
  for (const path of paths) {
    const length = Buffer.byteLength(path) + 1
    if (chunk.length > 0 && bytes + length > ARGUMENT_BYTES) {
      yield chunk
      chunk = []
      bytes = 0
    }
    chunk.push(path)
    bytes += length
  }
  if (chunk.length > 0) yield chunk
}

/**
 * The bytes of blobs by object id, through one `cat-file --batch`. A blob over `maxBytes` is not
 * read (null); a missing object is an error.
 */
export async function readBlobs(
  shadow: Shadow,
  oids: readonly string[],
  maxBytes: number,
): Promise<Outcome<Map<string, Buffer | null>>> {
  const unique = [...new Set(oids)]
  const result = new Map<string, Buffer | null>()
  if (unique.length === 0) return ok(result)
  const sizes = await shadowGit(shadow, ['cat-file', '--batch-check'], 'cat-file', { stdin: `${unique.join('\n')}\n` })
  if (sizes.kind === 'error') return sizes
  const small: string[] = []
  for (const line of sizes.result.stdout.toString('utf8').split('\n')) {
    if (line === '') continue
    const [oid = '', type = '', size = ''] = line.split(' ')
    if (type === 'missing') return snapshotGone(oid)
    if (Number(size) > maxBytes) result.set(oid, null)
    else small.push(oid)
  }
  if (small.length === 0) return ok(result)
  const read = await shadowGit(shadow, ['cat-file', '--batch'], 'cat-file', {
    stdin: `${small.join('\n')}\n`,
    timeoutMs: 120_000,
  })
  if (read.kind === 'error') return read
  const out = read.result.stdout
  let offset = 0
  while (offset < out.length) {
    const newline = out.indexOf(0x0a, offset)
    if (newline < 0) break
    const [oid = '', type = '', size = ''] = out.subarray(offset, newline).toString('utf8').split(' ')
    if (type === 'missing') return snapshotGone(oid)
    const length = Number(size)
    result.set(oid, Buffer.from(out.subarray(newline + 1, newline + 1 + length)))
    offset = newline + 1 + length + 1
  }
  return ok(result)
}

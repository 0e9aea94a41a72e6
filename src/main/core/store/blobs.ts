import { createHash, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { readdir, readFile, rename, stat, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { fail, ok, type Outcome } from '../../../shared/protocol'
import { fsyncDirectory, processAlive, writeNewFileSynced } from '../platform'
import type { Database } from './database'

/** `sha256:<64 hex>` — the same form as a file revision. */
export type Digest = string

export function digestOf(bytes: Uint8Array): Digest {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}

export interface BlobStore {
  /** Stores bytes durably (temp → fsync → rename → dir fsync) and returns their digest. */
  put(bytes: Uint8Array, knownDigest?: Digest): Promise<Digest>
  /**
   * Keeps bytes for a while without making them durable (no fsync): for copies of content that git
   * or the worktree already holds (Review's workspace pins). Kept apart from the durable blobs, so
   * `put` never mistakes a cached copy for a durable one; `read` falls back to it.
   */
  putCached(bytes: Uint8Array): Digest
  /** The bytes of a blob, verified against its digest; a mismatch is never returned as content. */
  read(digest: Digest): Promise<Outcome<Buffer>>
  pathOf(digest: Digest): string
  /**
   * Where a blob's bytes are (the durable copy, else this process's cached copy), or null: for
   * readers that stream a blob and verify its digest themselves as they go (byte transfers), so
   * a large version is never held in memory whole.
   */
  locate(digest: Digest): string | null
  /**
   * Mark-and-sweep: removes blobs no `blob_refs` row names, skipping any younger than the grace
   * period (a writer may have stored it and not yet committed the row that references it).
   */
  sweep(options: { graceMs: number; now?: number }): Promise<{ removed: Digest[]; kept: number }>
}

const HEX = /^sha256:([0-9a-f]{64})$/
const CACHE_TTL_MS = 60 * 60 * 1000

export function createBlobStore(dataDir: string, db: Database): BlobStore {
  const root = join(dataDir, 'blobs', 'sha256')
  const tmp = join(dataDir, 'tmp')
  mkdirSync(root, { recursive: true, mode: 0o700 })
  mkdirSync(tmp, { recursive: true, mode: 0o700 })
  // Cached copies live as long as the process that made them (Review snapshots are in memory):
  // each process has its own folder, and folders of processes that are gone are removed.
  const caches = join(dataDir, 'cache')
  mkdirSync(caches, { recursive: true, mode: 0o700 })
  for (const name of readdirSync(caches)) {
    const pid = Number(name.split('-')[0])
    if (!Number.isInteger(pid) || !processAlive(pid)) rmSync(join(caches, name), { recursive: true, force: true })
  }
  const cache = join(caches, `${process.pid}-${randomUUID().slice(0, 8)}`)
  mkdirSync(cache, { recursive: true, mode: 0o700 })
  const cachedHere = new Set<Digest>()
  const cacheDirs = new Set<string>()
  const referenced = db.prepare('SELECT 1 FROM blob_refs WHERE digest = ? LIMIT 1')

  const pathOf = (digest: Digest) => {
    const hex = HEX.exec(digest)?.[1]
    if (!hex) throw new Error(`not a sha256 digest: ${digest}`)
    return join(root, hex.slice(0, 2), hex.slice(2))
  }

  const cachedPathOf = (digest: Digest) => join(cache, (HEX.exec(digest)?.[1] as string).slice(0, 2), digest.slice(9))

  return {
    pathOf,
    locate(digest) {
      if (!HEX.test(digest)) return null
      const durable = pathOf(digest)
      if (existsSync(durable)) return durable
      const cached = cachedPathOf(digest)
      return existsSync(cached) ? cached : null
    },
    putCached(bytes) {
      const digest = digestOf(bytes)
      if (cachedHere.has(digest)) return digest
      const target = cachedPathOf(digest)
      const dir = join(target, '..')
      if (!cacheDirs.has(dir)) {
        mkdirSync(dir, { recursive: true, mode: 0o700 })
        cacheDirs.add(dir)
      }
      // Written in place, no temp and no fsync: the folder is this process's own, a torn copy is
      // caught by the digest check on read, and the bytes are still in git or the worktree.
      try {
        writeFileSync(target, bytes, { mode: 0o400, flag: 'wx' })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      cachedHere.add(digest)
      return digest
    },
    async put(bytes, knownDigest) {
      const digest = knownDigest ?? digestOf(bytes)
      const target = pathOf(digest)
      const existing = statSync(target, { throwIfNoEntry: false })
      // Dedup: an existing blob of the right size is verified on every read, so trusting it here
      // never returns corrupt bytes later.
      if (existing?.isFile() && existing.size === bytes.length) {
        // Refresh its age so a concurrent sweep's grace period covers the reference about to be written.
        const now = new Date()
        utimesSync(target, now, now)
        return digest
      }
      const dir = join(target, '..')
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      const temp = join(tmp, `blob-${randomUUID()}`)
      try {
        await writeNewFileSynced(temp, bytes, 0o400)
        await rename(temp, target)
      } catch (error) {
        // A full disk (or any failed write) must not leave a partial temp behind to fill it further.
        await unlink(temp).catch(() => undefined)
        throw error
      }
      await fsyncDirectory(dir)
      return digest
    },
    async read(digest) {
      let bytes: Buffer
      try {
        const durable = pathOf(digest)
        const path = existsSync(durable) ? durable : cachedPathOf(digest)
        // Small blobs (nearly all of them) are read synchronously: microseconds, no pool hop.
        const size = statSync(path).size
        bytes = size <= 1024 * 1024 ? readFileSync(path) : await readFile(path)
      } catch {
        return fail('UNAVAILABLE', 'A stored version of this file is missing from the content store.', {
          reason: 'missing',
          digest,
        })
      }
      if (digestOf(bytes) !== digest) {
        return fail('UNAVAILABLE', 'A stored version of this file is corrupt and was not used.', {
          reason: 'corrupt',
          digest,
        })
      }
      return ok(bytes)
    },
    async sweep({ graceMs, now = Date.now() }) {
      const removed: Digest[] = []
      let kept = 0
      // Cached copies outlive every snapshot that could use them after an hour.
      for (const prefix of await readdir(cache).catch(() => [] as string[])) {
        for (const rest of await readdir(join(cache, prefix)).catch(() => [] as string[])) {
          const file = join(cache, prefix, rest)
          const info = await stat(file).catch(() => undefined)
          if (info && now - info.mtimeMs > CACHE_TTL_MS) {
            await unlink(file).catch(() => undefined)
            cachedHere.delete(`sha256:${prefix}${rest}`)
          }
        }
      }
      for (const prefix of await readdir(root)) {
        for (const rest of await readdir(join(root, prefix))) {
          const digest = `sha256:${prefix}${rest}`
          const file = join(root, prefix, rest)
          const info = await stat(file).catch(() => undefined)
          if (!info) continue
          if (now - info.mtimeMs < graceMs || referenced.get(digest)) {
            kept += 1
            continue
          }
          // Re-check right before unlinking: a reference committed during the walk keeps the blob.
          if (referenced.get(digest)) {
            kept += 1
            continue
          }
          await unlink(file).catch(() => undefined)
          removed.push(digest)
        }
      }
      return { removed, kept }
    },
  }
}

import { createHash, randomBytes } from 'node:crypto'
import { closeSync, fstatSync, open, read } from 'node:fs'
import { promisify } from 'node:util'
import { LRUCache } from 'lru-cache'
import { baseName } from '../../../shared/paths'
import { fail, ok, type Outcome, type ResultOf } from '../../../shared/protocol'
import { createLimiter } from '../platform'
import type { BlobStore, Digest } from '../store'
import { openForRead, type ProjectRoots } from './containment'
import type { ByteBudget, ReadLimits } from './read'
import { sniffMime } from './sniff'

const readAsync = promisify(read)
const openAsync = promisify(open)

/** Where byte transfers are served, on the app's own origin in both shells. */
export const BYTES_ROUTE = '/api/bytes/'
/**
 * What one transfer holds in memory at a time is about two chunks (the one held back for the
 * digest check and the one in the socket's buffer): 256 KiB keeps a paused reader at ~0.5 MiB.
 */
const CHUNK_BYTES = 256 * 1024
const TICKET_TTL_MS = 10 * 60 * 1000
const MAX_TICKETS = 2000
/**
 * Transfers streaming bytes at once, across all clients; more wait in line for a turn (they are
 * never refused). A browser opens at most six connections to one host, so a window never waits
 * here; sixty paused readers of one large version hold ≈ 16 × 0.5 MiB, not sixty copies of it.
 * A transfer whose reader stops taking bytes is cut by the shell's stall timeout, freeing its turn.
 */
export const MAX_CONCURRENT_TRANSFERS = 16

type Ticket =
  | {
      readonly kind: 'file'
      readonly roots: ProjectRoots
      readonly path: string
      readonly revision: Digest
      readonly mime: string
      readonly size: number
      readonly identity: string
    }
  | { readonly kind: 'blob'; readonly digest: Digest; readonly mime: string; readonly size: number }

/** A byte transfer's answer, for either shell to put on the wire (HTTP or Electron's protocol). */
export interface ByteResponse {
  readonly status: 200 | 206 | 404 | 409 | 416
  readonly headers: Readonly<Record<string, string>>
  /** Absent for errors and HEAD; the stream throws if the file turns out to have changed. */
  readonly body: AsyncIterable<Uint8Array> | Iterable<Uint8Array> | null
}

export interface ByteTransfers {
  /** `files.read_bytes`: checks and hashes the file now; the returned URL serves exactly that revision. */
  issueFile(roots: ProjectRoots, path: string): Promise<Outcome<ResultOf<'files.read_bytes'>>>
  /** A URL serving a stored version (History, Review) from the content store. */
  issueBlob(digest: Digest, size: number, mime: string): string
  serve(ticketId: string, options: { range?: string | undefined; head?: boolean }): Promise<ByteResponse>
}

/**
 * Large bytes never travel inside a JSON frame: a request gets a short-lived, unguessable URL on
 * the app's origin and the shell streams the file from there (spec 08 "binary reads return bytes
 * only to adapters that need them"). Range requests let media elements seek.
 */
export function createByteTransfers(deps: {
  blobs: BlobStore
  limits: ReadLimits
  budget: ByteBudget
  maxConcurrentTransfers?: number
}): ByteTransfers {
  const tickets = new LRUCache<string, Ticket>({ max: MAX_TICKETS, ttl: TICKET_TTL_MS })
  // A range of a blob cannot be checked against the digest by itself: the first range request
  // hashes the whole blob (streaming), and later ones trust that file while its identity holds.
  const verifiedBlobs = new LRUCache<Digest, string>({ max: MAX_TICKETS })
  const limit = createLimiter(deps.maxConcurrentTransfers ?? MAX_CONCURRENT_TRANSFERS)
  const takeTurn = (): Promise<() => void> =>
    new Promise((granted) => {
      void limit(() => new Promise<void>((release) => granted(release)))
    })
  const newTicket = (ticket: Ticket) => {
    const id = randomBytes(24).toString('base64url')
    tickets.set(id, ticket)
    return `${BYTES_ROUTE}${id}`
  }

  return {
    async issueFile(roots, path) {
      const opened = await openForRead(roots, path)
      if (opened.kind === 'error') return opened
      const target = opened.result
      try {
        if (target.kind === 'directory')
          return fail('INVALID_REQUEST', `"${path}" is a folder, not a file.`, { path, reason: 'is-directory' })
        if (target.size > deps.limits.maxReadBytes) {
          return fail('TOO_LARGE', `"${path}" is larger than the read limit.`, {
            path,
            size: target.size,
            limit: deps.limits.maxReadBytes,
            reason: 'read-limit',
          })
        }
        const identity = identityOf(target.fd)
        const hash = createHash('sha256')
        let total = 0
        const head = Buffer.alloc(Math.min(4096, target.size))
        const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(1, target.size)))
        const release = await deps.budget.acquire(buffer.length)
        try {
          for (;;) {
            const { bytesRead } = await readAsync(target.fd, buffer, 0, buffer.length, total)
            if (bytesRead === 0) break
            if (total < head.length) buffer.copy(head, total, 0, Math.min(bytesRead, head.length - total))
            hash.update(buffer.subarray(0, bytesRead))
            total += bytesRead
            if (total > deps.limits.maxReadBytes) {
              return fail('TOO_LARGE', `"${path}" is larger than the read limit.`, {
                path,
                size: total,
                limit: deps.limits.maxReadBytes,
                reason: 'read-limit',
              })
            }
          }
        } finally {
          release()
        }
        if (total !== target.size || identityOf(target.fd) !== identity) {
          return fail('CONFLICT', `"${path}" changed while Retrace read it; try again.`, {
            path,
            reason: 'changed-during-read',
          })
        }
        const revision: Digest = `sha256:${hash.digest('hex')}`
        const mime = sniffMime(baseName(path), head)
        const url = newTicket({ kind: 'file', roots, path, revision, mime, size: total, identity })
        return ok({ path, url, revision, size: total, mime })
      } finally {
        target.close()
      }
    },

    issueBlob(digest, size, mime) {
      return newTicket({ kind: 'blob', digest, mime, size })
    },

    async serve(ticketId, options) {
      const ticket = tickets.get(ticketId)
      if (!ticket) return { status: 404, headers: plainHeaders(), body: null }
      const range = parseRange(options.range, ticket.size)
      if (range === 'unsatisfiable') {
        return { status: 416, headers: { ...plainHeaders(), 'Content-Range': `bytes */${ticket.size}` }, body: null }
      }
      const headers = byteHeaders(ticket, range)
      const status = range ? 206 : 200
      let source: { open: () => Promise<OpenBytes>; verify: Verification }
      if (ticket.kind === 'blob') {
        const path = deps.blobs.locate(ticket.digest)
        if (path === null) return { status: 404, headers: plainHeaders(), body: null }
        source = {
          open: () => openBlob(path, ticket.size),
          verify: range
            ? { kind: 'verified-identity', digest: ticket.digest, verified: verifiedBlobs }
            : { kind: 'digest', digest: ticket.digest },
        }
      } else {
        // Checked now for the status code, and again when the bytes start: a file replaced in
        // between ends the transfer in an error, never in other bytes.
        const opened = await openForRead(ticket.roots, ticket.path)
        if (opened.kind === 'error') return { status: 404, headers: plainHeaders(), body: null }
        const target = opened.result
        const unchanged = target.kind === 'file' && identityOf(target.fd) === ticket.identity
        target.close()
        if (!unchanged) return { status: 409, headers: plainHeaders(), body: null }
        source = {
          open: () => openTicketFile(ticket),
          verify: range ? { kind: 'identity' } : { kind: 'digest', digest: ticket.revision },
        }
      }
      if (options.head) return { status, headers, body: null }
      return {
        status,
        headers,
        body: streamBytes({ takeTurn, ...source, range: range ?? { start: 0, end: ticket.size - 1 } }),
      }
    },
  }
}

/** Identity of an open file: any write, truncation or replacement changes it. */
function identityOf(fd: number): string {
  const info = fstatSync(fd, { bigint: true })
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`
}

interface OpenBytes {
  readonly fd: number
  /** The identity the ticket promised (dev:ino:size:mtime:ctime); checked again after the last read. */
  readonly identity: string
  close(): void
}

async function openTicketFile(ticket: Extract<Ticket, { kind: 'file' }>): Promise<OpenBytes> {
  const opened = await openForRead(ticket.roots, ticket.path)
  if (opened.kind === 'error') throw new Error('the file is gone')
  const target = opened.result
  if (target.kind !== 'file' || identityOf(target.fd) !== ticket.identity) {
    target.close()
    throw new Error('the file changed before the transfer started')
  }
  return { fd: target.fd, identity: ticket.identity, close: () => target.close() }
}

async function openBlob(path: string, size: number): Promise<OpenBytes> {
  const fd = await openAsync(path, 'r')
  const identity = identityOf(fd)
  if (fstatSync(fd).size !== size) {
    closeSync(fd)
    throw new Error('the stored version has the wrong size')
  }
  return { fd, identity, close: () => closeSync(fd) }
}

type Verification =
  /** A whole transfer: the digest of everything read must match before the last chunk leaves. */
  | { readonly kind: 'digest'; readonly digest: Digest }
  /** A range of a project file: the file's identity must hold throughout (media seeking). */
  | { readonly kind: 'identity' }
  /** A range of a blob: hashed whole once per file identity, then trusted while that identity holds. */
  | { readonly kind: 'verified-identity'; readonly digest: Digest; readonly verified: LRUCache<Digest, string> }

/**
 * Streams `[start, end]` in 256 KiB chunks at the consumer's pace, after waiting for a transfer
 * turn. Everything (the turn, the descriptor) is taken on the first pull and released in
 * `finally`, so a body that is never read holds nothing. For a whole transfer the last chunk is
 * held back until the digest matches: bytes rewritten mid-transfer end in an error, never in a
 * wrong "complete" answer.
 */
async function* streamBytes(options: {
  takeTurn: () => Promise<() => void>
  open: () => Promise<OpenBytes>
  range: { start: number; end: number }
  verify: Verification
}): AsyncGenerator<Uint8Array> {
  const { range, verify } = options
  const release = await options.takeTurn()
  let source: OpenBytes | null = null
  try {
    source = await options.open()
    if (verify.kind === 'verified-identity' && verify.verified.get(verify.digest) !== source.identity) {
      if ((await digestOfFd(source.fd)) !== verify.digest) throw new Error('the stored version is corrupt')
      verify.verified.set(verify.digest, source.identity)
    }
    const hash = verify.kind === 'digest' ? createHash('sha256') : null
    let position = range.start
    let held: Buffer | null = null
    while (position <= range.end) {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, range.end + 1 - position))
      const { bytesRead } = await readAsync(source.fd, buffer, 0, buffer.length, position)
      if (bytesRead === 0) throw new Error('the file shrank during the transfer')
      const chunk = buffer.subarray(0, bytesRead)
      hash?.update(chunk)
      position += bytesRead
      if (held) yield held
      held = chunk
    }
    if (hash && verify.kind === 'digest' && `sha256:${hash.digest('hex')}` !== verify.digest) {
      throw new Error('the bytes changed during the transfer')
    }
    if (verify.kind !== 'digest' && identityOf(source.fd) !== source.identity) {
      throw new Error('the file changed during the transfer')
    }
    if (held) yield held
  } finally {
    source?.close()
    release()
  }
}

async function digestOfFd(fd: number): Promise<Digest> {
  const hash = createHash('sha256')
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
  for (let position = 0; ;) {
    const { bytesRead } = await readAsync(fd, buffer, 0, buffer.length, position)
    if (bytesRead === 0) break
    hash.update(buffer.subarray(0, bytesRead))
    position += bytesRead
  }
  return `sha256:${hash.digest('hex')}`
}

function plainHeaders(): Record<string, string> {
  return { 'Content-Length': '0', 'Cache-Control': 'no-store' }
}

function byteHeaders(ticket: Ticket, range: { start: number; end: number } | null): Record<string, string> {
  const length = range ? range.end - range.start + 1 : ticket.size
  return {
    'Content-Type': ticket.mime,
    'Content-Length': String(length),
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, no-store',
    ETag: `"${ticket.kind === 'file' ? ticket.revision : ticket.digest}"`,
    // Project bytes opened as a page (an SVG or HTML file) must never run in the app's origin.
    'Content-Security-Policy': "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox",
    'X-Content-Type-Options': 'nosniff',
    ...(range ? { 'Content-Range': `bytes ${range.start}-${range.end}/${ticket.size}` } : {}),
  }
}

/** One `bytes=a-b` range (what media elements send); anything else is served whole. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | 'unsatisfiable' {
  if (!header) return null
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match) return null
  const [, from = '', to = ''] = match
  if (from === '' && to === '') return null
  let start: number
  let end: number
  if (from === '') {
    const suffix = Number(to)
    if (suffix === 0) return 'unsatisfiable'
    start = Math.max(0, size - suffix)
    end = size - 1
  } else {
    start = Number(from)
    end = to === '' ? size - 1 : Math.min(Number(to), size - 1)
  }
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start > end || start >= size) return 'unsatisfiable'
  return { start, end }
}

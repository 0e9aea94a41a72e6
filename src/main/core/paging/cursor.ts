import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/** Separate namespaces: a cursor of one kind is never accepted by another (spec 02). */
export type QueryKind =
  'directory' | 'project_search' | 'content_search' | 'review_scope' | 'review_diff' | 'file_history'

export interface CursorClaims {
  readonly query_kind: QueryKind
  readonly snapshot_id: string
  readonly project_id: string
  /** What the snapshot was computed from (directory version, journal revision, git identities). */
  readonly basis: string
  /** The query itself (path, filter, sort) in a canonical string form. */
  readonly query: string
  readonly offset: number
}

export interface CursorSigner {
  sign(claims: CursorClaims): string
  /** The claims of a genuine cursor, or `undefined` for a forged, truncated or foreign one. */
  open(token: string): CursorClaims | undefined
}

/**
 * Cursors are opaque to clients: base64url JSON claims plus an HMAC-SHA256 with a per-process key.
 * A restart therefore invalidates every cursor, which the client sees as `STALE_SNAPSHOT` — the
 * snapshots they point into are in memory and gone too.
 */
export function createCursorSigner(key: Buffer = randomBytes(32)): CursorSigner {
  const mac = (body: string) => createHmac('sha256', key).update(body).digest()
  return {
    sign(claims) {
      const body = Buffer.from(JSON.stringify(claims)).toString('base64url')
      return `${body}.${mac(body).toString('base64url')}`
    },
    open(token) {
      const dot = token.indexOf('.')
      if (dot <= 0) return undefined
      const body = token.slice(0, dot)
      const given = Buffer.from(token.slice(dot + 1), 'base64url')
      const expected = mac(body)
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
      try {
        return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorClaims
      } catch {
        return undefined
      }
    },
  }
}

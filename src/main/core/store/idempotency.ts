import { createHash } from 'node:crypto'
import type { Database } from './database'

export interface IdempotencyClaim {
  readonly ownerKey: string
  readonly action: string
  readonly key: string
  readonly fingerprint: string
}

export type ClaimLookup =
  | { kind: 'new' }
  | { kind: 'conflict' }
  | { kind: 'replay'; response: unknown }
  | { kind: 'running'; operationId: string }

export interface IdempotencyStore {
  lookup(claim: IdempotencyClaim): ClaimLookup
  /** Call inside the SQLite transaction that prepares the mutation, so claim and prepare are atomic. */
  insertRunning(claim: IdempotencyClaim, operationId: string, responseOnSuccess: unknown): void
  complete(claim: IdempotencyClaim, response: unknown): void
  forget(claim: IdempotencyClaim): void
  /** Records left running by a process that stopped: resolved at start-up before any replay. */
  running(): Array<IdempotencyClaim & { operationId: string; response: unknown }>
  completeByOperation(operationId: string, response?: unknown): void
  forgetByOperation(operationId: string): void
}

/**
 * Spec 02: fingerprint = sha256(action + owner + canonical payload + precondition). Canonical JSON
 * sorts object keys so field order never changes the fingerprint.
 */
export function fingerprintOf(action: string, owner: unknown, payload: unknown, precondition: unknown): string {
  return createHash('sha256').update(canonicalJson({ action, owner, payload, precondition })).digest('hex')
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
}

export function createIdempotencyStore(db: Database): IdempotencyStore {
  const select = db.prepare(
    'SELECT fingerprint, operation_id, state, response FROM idempotency_records WHERE owner_key = ? AND action = ? AND idempotency_key = ?',
  )
  const insert = db.prepare(
    `INSERT INTO idempotency_records (owner_key, action, idempotency_key, fingerprint, operation_id, state, response, created_at_ms)
     VALUES (?, ?, ?, ?, ?, 'running', ?, ?)`,
  )
  const complete = db.prepare(
    `UPDATE idempotency_records SET state = 'done', response = ?, completed_at_ms = ?
     WHERE owner_key = ? AND action = ? AND idempotency_key = ?`,
  )
  const completeOp = db.prepare(
    `UPDATE idempotency_records SET state = 'done', response = coalesce(?, response), completed_at_ms = ? WHERE operation_id = ?`,
  )
  const remove = db.prepare(
    'DELETE FROM idempotency_records WHERE owner_key = ? AND action = ? AND idempotency_key = ?',
  )
  const removeOp = db.prepare('DELETE FROM idempotency_records WHERE operation_id = ?')
  const running = db.prepare(
    "SELECT owner_key, action, idempotency_key, fingerprint, operation_id, response FROM idempotency_records WHERE state = 'running'",
  )

  return {
    lookup(claim) {
      const row = select.get(claim.ownerKey, claim.action, claim.key) as
        { fingerprint: string; operation_id: string; state: string; response: string | null } | undefined
      if (!row) return { kind: 'new' }
      if (row.fingerprint !== claim.fingerprint) return { kind: 'conflict' }
      if (row.state === 'running') return { kind: 'running', operationId: row.operation_id }
      return { kind: 'replay', response: row.response === null ? null : JSON.parse(row.response) }
    },
    insertRunning(claim, operationId, responseOnSuccess) {
      insert.run(
        claim.ownerKey,
        claim.action,
        claim.key,
        claim.fingerprint,
        operationId,
        JSON.stringify(responseOnSuccess),
        Date.now(),
      )
    },
    complete(claim, response) {
      complete.run(JSON.stringify(response), Date.now(), claim.ownerKey, claim.action, claim.key)
    },
    forget(claim) {
      remove.run(claim.ownerKey, claim.action, claim.key)
    },
    running() {
      return (running.all() as Array<Record<string, string>>).map((row) => ({
        ownerKey: row.owner_key ?? '',
        action: row.action ?? '',
        key: row.idempotency_key ?? '',
        fingerprint: row.fingerprint ?? '',
        operationId: row.operation_id ?? '',
        response: row.response ? JSON.parse(row.response) : null,
      }))
    },
    completeByOperation(operationId, response) {
      completeOp.run(response === undefined ? null : JSON.stringify(response), Date.now(), operationId)
    },
    forgetByOperation(operationId) {
      removeOp.run(operationId)
    },
  }
}

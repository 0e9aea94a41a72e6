import { statement, type Database } from '../store'
import { receiptsFromRows } from './records'
import type { Receipt } from './types'

export interface ReceiptQuery {
  readonly workspace_id: string
  readonly since_sequence?: number
  /** Inclusive upper bound, for a range (since, until]. */
  readonly until_sequence?: number
  readonly origin_turn_id?: string
  readonly file_lineage_id?: string
  /** Transactions recorded on one conversation branch (turns and explicit restores). */
  readonly branch_id?: string
  readonly limit?: number
}

const MAX_LIMIT = 1000

/**
 * Receipts in workspace_sequence order — the only order history is projected in (spec 03). Each
 * filter is served by an index, so a turn's receipts cost the same on a journal of any length.
 */
export function queryReceipts(db: Database, query: ReceiptQuery): Receipt[] {
  const limit = Math.max(1, Math.min(MAX_LIMIT, query.limit ?? 100))
  const where = ['t.workspace_id = ?']
  const params: Array<string | number> = [query.workspace_id]
  if (query.since_sequence !== undefined) {
    where.push('t.workspace_sequence > ?')
    params.push(query.since_sequence)
  }
  if (query.until_sequence !== undefined) {
    where.push('t.workspace_sequence <= ?')
    params.push(query.until_sequence)
  }
  if (query.origin_turn_id !== undefined) {
    where.push('t.origin_turn_id = ?')
    params.push(query.origin_turn_id)
  }
  if (query.branch_id !== undefined) {
    where.push('t.branch_id = ?')
    params.push(query.branch_id)
  }
  if (query.file_lineage_id !== undefined) {
    where.push('t.transaction_id IN (SELECT transaction_id FROM transaction_files WHERE file_lineage_id = ?)')
    params.push(query.file_lineage_id)
  }
  const rows = statement(
    db,
    `SELECT t.* FROM transactions t WHERE ${where.join(' AND ')} ORDER BY t.workspace_sequence LIMIT ?`,
  ).all(...params, limit)
  return receiptsFromRows(db, rows as never)
}

/**
 * Every receipt matching the query, however many: read in pages along workspace_sequence. For
 * engine decisions (a restore plan, a turn summary), where a truncated list would be a silent
 * partial result.
 */
export function queryAllReceipts(db: Database, query: Omit<ReceiptQuery, 'limit'>): Receipt[] {
  const all: Receipt[] = []
  let since = query.since_sequence
  for (;;) {
    const page = queryReceipts(db, {
      ...query,
      ...(since === undefined ? {} : { since_sequence: since }),
      limit: MAX_LIMIT,
    })
    all.push(...page)
    if (page.length < MAX_LIMIT) return all
    since = page[page.length - 1]?.workspace_sequence
  }
}

/** One transaction's receipt, or undefined when there is no such transaction. */
export function receiptOf(db: Database, transactionId: string): Receipt | undefined {
  const rows = statement(db, 'SELECT * FROM transactions WHERE transaction_id = ?').all(transactionId)
  return receiptsFromRows(db, rows as never)[0]
}

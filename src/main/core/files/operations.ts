import { fail, ok, type Outcome } from '../../../shared/protocol'
import {
  digestOf,
  fingerprintOf,
  statement,
  type Database,
  type IdempotencyClaim,
  type IdempotentMutations,
} from '../store'
import {
  planCopy,
  planCreate,
  planDelete,
  planRename,
  planWrite,
  type Journal,
  type MutatorContext,
  type PlannedChange,
  type Receipt,
  type Workspace,
} from '../journal'

export interface MutationResult {
  readonly transaction_id: string
  readonly revision: string | null
  /** The file the mutation ended on (for replays of operations that chose it, like a conversion). */
  readonly path?: string
}

export interface OperationContext {
  readonly projectId: string
  readonly sessionId: string | undefined
  readonly idempotencyKey: string | undefined
  readonly workspace: Workspace
}

export interface HumanOperations {
  write(
    context: OperationContext,
    payload: {
      path: string
      content?: string
      content_base64?: string
      expected_revision: string | null
      edit_session_id?: string | undefined
    },
  ): Promise<Outcome<MutationResult>>
  /** File History's restore: `content` is the version's stored bytes (read and verified by the caller). */
  restoreVersion(
    context: OperationContext,
    payload: { path: string; version_id: string; content: Buffer; expected_revision: string | null },
  ): Promise<Outcome<MutationResult>>
  create(
    context: OperationContext,
    payload: { path: string; kind: 'file' | 'dir'; content?: string },
  ): Promise<Outcome<MutationResult>>
  rename(
    context: OperationContext,
    payload: { from: string; to: string; expected_revision: string },
  ): Promise<Outcome<MutationResult>>
  copy(context: OperationContext, payload: { from: string; to: string }): Promise<Outcome<MutationResult>>
  delete(
    context: OperationContext,
    payload: { path: string; expected_revision: string | null },
  ): Promise<Outcome<MutationResult>>
  /**
   * Another module's human file operation (e.g. `office.convert` publishing a converted copy):
   * the same idempotency and journal path as the explorer's, under that module's action name.
   */
  custom(
    context: OperationContext,
    action: string,
    canonical: { payload: unknown; precondition: unknown },
    plan: (mutator: MutatorContext) => Promise<Outcome<PlannedChange[]>>,
  ): Promise<Outcome<MutationResult>>
  /** The stored outcome for this key if it was already used (replay, conflict, still running), else undefined. */
  replayed(
    context: OperationContext,
    action: string,
    canonical: { payload: unknown; precondition: unknown },
  ): Outcome<MutationResult> | undefined
}

// One character class under one star: V8 matches it in a loop, never by recursion, so a 90 MB
// string cannot overflow the stack (a quantified group did).
const BASE64_ALPHABET = /^[A-Za-z0-9+/]*={0,2}$/

/**
 * The explorer's and editor's file operations (spec 08): each a journaled `kind: human` mutation
 * behind spec 02's idempotency — same key and fingerprint replays the stored outcome, a different
 * fingerprint is refused with zero writes, a running one is awaited, never started twice.
 */
export function createHumanOperations(deps: {
  db: Database
  journal: Journal
  mutations: IdempotentMutations
  onCommitted: (workspace: Workspace, receipt: Receipt) => void
}): HumanOperations {
  const { journal, mutations } = deps

  async function run(
    context: OperationContext,
    action: string,
    canonical: { payload: unknown; precondition: unknown },
    plan: (mutator: MutatorContext) => Promise<Outcome<PlannedChange[]>>,
    note: OperationNote = {},
  ): Promise<Outcome<MutationResult>> {
    const key = context.idempotencyKey
    if (key === undefined) return fail('INVALID_REQUEST', `"${action}" needs an idempotency_key.`)
    return mutations.run<MutationResult>(claimOf(context, action, key, canonical), async (hooks) => {
      const outcome = await journal.mutate(
        context.workspace,
        { kind: 'human', session_id: context.sessionId ?? null },
        () => plan({ workspace: context.workspace, limits: journal.limits }),
        {
          onPrepared: (receipt) => {
            hooks.prepared(receipt.transaction_id, resultOf(receipt))
            recordHumanOperation(deps.db, receipt.transaction_id, action, note)
          },
          onSettled: (receipt) => {
            if (receipt.status !== 'prepared') hooks.settled(receipt.status, resultOf(receipt))
          },
        },
      )
      if (outcome.kind === 'error') return outcome
      deps.onCommitted(context.workspace, outcome.result)
      return ok(resultOf(outcome.result))
    })
  }

  return {
    custom: (context, action, canonical, plan) => run(context, action, canonical, plan),
    replayed(context, action, canonical) {
      const key = context.idempotencyKey
      if (key === undefined) return fail('INVALID_REQUEST', `"${action}" needs an idempotency_key.`)
      return mutations.peek<MutationResult>(claimOf(context, action, key, canonical))
    },
    async write(context, payload) {
      const bytes = decodeContent(payload.content, payload.content_base64)
      if (bytes.kind === 'error') return bytes
      return run(
        context,
        'files.write',
        {
          payload: { path: payload.path, content: digestOf(bytes.result) },
          precondition: { expected_revision: payload.expected_revision },
        },
        (mutator) =>
          planWrite(mutator, {
            path: payload.path,
            source: { content: bytes.result },
            expected: payload.expected_revision,
          }),
        { edit_session_id: payload.edit_session_id },
      )
    },
    async restoreVersion(context, payload) {
      return run(
        context,
        'files.restore_version',
        {
          payload: { path: payload.path, version_id: payload.version_id, content: digestOf(payload.content) },
          precondition: { expected_revision: payload.expected_revision },
        },
        (mutator) =>
          planWrite(mutator, {
            path: payload.path,
            source: { content: payload.content },
            expected: payload.expected_revision,
          }),
        { restored_version_id: payload.version_id },
      )
    },
    async create(context, payload) {
      const content = payload.content === undefined ? undefined : Buffer.from(payload.content, 'utf8')
      if (payload.kind === 'dir' && content !== undefined) {
        return fail('INVALID_REQUEST', 'A folder has no content.', { path: payload.path })
      }
      return run(
        context,
        'files.create',
        {
          payload: { path: payload.path, kind: payload.kind, content: content ? digestOf(content) : null },
          precondition: { expected_revision: null },
        },
        (mutator) => planCreate(mutator, { path: payload.path, kind: payload.kind, content }),
      )
    },
    async rename(context, payload) {
      return run(
        context,
        'files.rename',
        {
          payload: { from: payload.from, to: payload.to },
          precondition: { expected_revision: payload.expected_revision, to: null },
        },
        (mutator) => planRename(mutator, { from: payload.from, to: payload.to, expected: payload.expected_revision }),
      )
    },
    async copy(context, payload) {
      return run(
        context,
        'files.copy',
        { payload: { from: payload.from, to: payload.to }, precondition: { to: null } },
        (mutator) => planCopy(mutator, payload),
      )
    },
    async delete(context, payload) {
      return run(
        context,
        'files.delete',
        { payload: { path: payload.path }, precondition: { expected_revision: payload.expected_revision } },
        (mutator) => planDelete(mutator, { path: payload.path, expected: payload.expected_revision }),
      )
    },
  }
}

/** What File History needs to know about a human operation beyond its receipt. */
interface OperationNote {
  readonly edit_session_id?: string | undefined
  readonly restored_version_id?: string | undefined
}

/** Written in the SQLite transaction that prepares the operation (so it exists iff the receipt does). */
function recordHumanOperation(db: Database, transactionId: string, action: string, note: OperationNote): void {
  statement(
    db,
    'INSERT INTO human_operations (transaction_id, action, edit_session_id, restored_version_id) VALUES (?, ?, ?, ?)',
  ).run(transactionId, action, note.edit_session_id ?? null, note.restored_version_id ?? null)
}

function claimOf(
  context: OperationContext,
  action: string,
  key: string,
  canonical: { payload: unknown; precondition: unknown },
): IdempotencyClaim {
  return {
    ownerKey: `${context.projectId}/${context.sessionId ?? ''}`,
    action,
    key,
    fingerprint: fingerprintOf(
      action,
      { project_id: context.projectId, session_id: context.sessionId ?? null },
      canonical.payload,
      canonical.precondition,
    ),
  }
}

function resultOf(receipt: Receipt): MutationResult {
  const last = receipt.files[receipt.files.length - 1]
  return {
    transaction_id: receipt.transaction_id,
    revision: last?.after.kind === 'regular' ? last.after.digest : null,
    ...(last ? { path: last.path } : {}),
  }
}

function decodeContent(content: string | undefined, base64: string | undefined): Outcome<Buffer> {
  if ((content === undefined) === (base64 === undefined)) {
    return fail('INVALID_REQUEST', 'Give exactly one of content and content_base64.', { reason: 'content-xor-base64' })
  }
  if (content !== undefined) return ok(Buffer.from(content, 'utf8'))
  const text = base64 ?? ''
  if (text.length % 4 !== 0 || !BASE64_ALPHABET.test(text)) {
    return fail('INVALID_REQUEST', 'content_base64 is not valid base64.', { reason: 'bad-base64' })
  }
  return ok(Buffer.from(text, 'base64'))
}

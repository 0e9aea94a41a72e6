import { randomBytes, randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { rename } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../src/main/core'
import {
  ensureWorkspace,
  openJournalStore,
  planApplyPatch,
  queryReceipts,
  type Journal,
  type Workspace,
} from '../src/main/core/journal'
import { fsyncDirectory, writeNewFileSynced } from '../src/main/core/platform'
import type { Database } from '../src/main/core/store'
import { medianPairMs, report } from './measure'
import { send } from '../test/support/protocol'

const host = { shell: 'browser' as const, appVersion: 'bench', log: () => {} }

/** The baseline spec 12 names: temp + fsync + rename + directory fsync of the same bytes. */
async function bareDurableWrite(dir: string, name: string, bytes: Uint8Array): Promise<void> {
  const temp = join(dir, `.bare-${randomUUID()}`)
  await writeNewFileSynced(temp, bytes, 0o644)
  await rename(temp, join(dir, name))
  await fsyncDirectory(dir)
}

async function trustedWrites(work: string): Promise<void> {
  const project = join(work, 'project')
  const bare = join(work, 'bare')
  const { mkdirSync } = await import('node:fs')
  mkdirSync(project)
  mkdirSync(bare)
  const core = createCore({ dataDir: join(work, 'data'), host })
  const opened = await send(core, 'project.open', { path: project })
  const owner = { project_id: (opened as { result: { project_id: string } }).result.project_id }
  for (const [label, size] of [
    ['4 KiB', 4 * 1024],
    ['1 MiB', 1024 * 1024],
  ] as const) {
    // An agent edits the same file again and again; every version is new, so each write stores a
    // new after-blob (its before-blob is the previous after-blob, already stored).
    const base = randomBytes(size)
      .toString('base64')
      .slice(0, size - 16)
    const version = (n: number) => `${base}${String(n).padStart(16, '0')}`
    let revision: string | null = null
    let turn = 0
    const name = `file-${size}.txt`
    let bareTurn = 0
    const [subject, baseline] = await medianPairMs(
      async () => {
        const content = version(turn++)
        const response = await send(
          core,
          'files.write',
          { path: name, content, expected_revision: revision },
          { owner },
        )
        if (response.status !== 'ok') throw new Error(JSON.stringify(response.error))
        revision = (response.result as { revision: string }).revision
      },
      () => bareDurableWrite(bare, name, Buffer.from(version(bareTurn++))),
      41,
      4,
    )
    report(
      `trusted write (files.write) of a ${label} file vs bare durable write`,
      subject,
      baseline,
      size === 4096 ? 3 : undefined,
    )
  }
  core.dispose()
}

function journalPieces(dataDir: string): { db: Database; journal: Journal } {
  const { db, journal } = openJournalStore(dataDir, { fault: () => {} })
  return { db, journal }
}

async function hundredFileApplyPatch(work: string): Promise<void> {
  const root = join(work, 'patch-project')
  const bare = join(work, 'patch-bare')
  mkdirSync(join(root, 'src'), { recursive: true })
  mkdirSync(bare)
  const { db, journal } = journalPieces(join(work, 'patch-data'))
  db.prepare("INSERT INTO projects VALUES ('prj_bench', ?, 'bench', 0, 0)").run(root)
  const workspace: Workspace = {
    workspace_id: ensureWorkspace(db, 'prj_bench', root),
    root,
    dataDir: join(work, 'patch-data'),
  }
  const body = (i: number) => `export const value${i} = ${i}\n`.repeat(40)
  for (let i = 0; i < 100; i++) writeFileSync(join(root, 'src', `m${i}.ts`), `${body(i)}// round 0\n`)
  // Each round, one patch updates the last line of all 100 files: one transaction.
  const patchFor = (round: number) =>
    [
      '*** Begin Patch',
      ...Array.from({ length: 100 }, (_, i) => [
        `*** Update File: src/m${i}.ts`,
        `-// round ${round - 1}`,
        `+// round ${round}`,
      ]).flat(),
      '*** End Patch',
    ].join('\n')
  let round = 0
  let bareRound = 0
  const [subject, baseline] = await medianPairMs(
    async () => {
      round += 1
      const outcome = await journal.mutate(workspace, { kind: 'edit' }, () =>
        planApplyPatch({ workspace, limits: journal.limits }, patchFor(round)),
      )
      if (outcome.kind === 'error') throw new Error(JSON.stringify(outcome.error))
    },
    async () => {
      bareRound += 1
      for (let i = 0; i < 100; i++)
        await bareDurableWrite(bare, `m${i}.ts`, Buffer.from(`${body(i)}// round ${bareRound}\n`))
    },
    7,
    2,
  )
  report('apply_patch of 100 files (one transaction) vs 100 bare durable writes', subject, baseline)
  db.close()
}

/** Bulk-loads `count` committed one-file transactions spread over turns, straight into SQLite. */
function seedJournal(db: Database, workspaceId: string, count: number): void {
  db.exec('BEGIN')
  const insertTx = db.prepare(
    `INSERT INTO transactions (transaction_id, workspace_id, workspace_sequence, origin_turn_id, kind, status, created_at_ms)
     VALUES (?, ?, ?, ?, 'edit', 'committed', 0)`,
  )
  const insertLineage = db.prepare(
    'INSERT INTO file_lineages (file_lineage_id, workspace_id, current_path, created_at_ms) VALUES (?, ?, NULL, 0)',
  )
  const insertFile = db.prepare(
    `INSERT INTO transaction_files (transaction_id, ordinal, file_lineage_id, path, old_path, operation, before_state, after_state,
       stats, diff_state, recoverability, unavailable_reason)
     VALUES (?, 0, ?, ?, NULL, 'modify', '{"kind":"absent"}', '{"kind":"absent"}', '{"added":1,"removed":1,"binary":false}', 'available', 'exact', NULL)`,
  )
  for (let i = 1; i <= count; i++) {
    const id = `mtx_${i}`
    insertTx.run(id, workspaceId, i, `turn_${Math.ceil(i / 5)}`)
    insertLineage.run(`file_${i}`, workspaceId)
    insertFile.run(id, `file_${i}`, `src/f${i % 1000}.ts`)
  }
  db.prepare('UPDATE workspaces SET last_sequence = ? WHERE workspace_id = ?').run(count, workspaceId)
  db.exec('COMMIT')
}

async function receiptQuery(work: string): Promise<void> {
  const journals = [10, 100_000].map((count) => {
    const { db } = journalPieces(join(work, `receipts-${count}`))
    db.prepare("INSERT INTO projects VALUES ('prj_q', '/q', 'q', 0, 0)").run()
    const workspaceId = ensureWorkspace(db, 'prj_q', '/q')
    seedJournal(db, workspaceId, count)
    return { db, workspaceId }
  })
  // The same turn (5 transactions) from both journals; each sample is a batch of 200 queries so
  // the timer's resolution and scheduler noise do not dominate a 0.1 ms query.
  const batch = (journal: (typeof journals)[number]) => () => {
    for (let i = 0; i < 200; i++)
      queryReceipts(journal.db, { workspace_id: journal.workspaceId, origin_turn_id: 'turn_2' })
  }
  const [small, large] = journals as [(typeof journals)[number], (typeof journals)[number]]
  const [largeMs, smallMs] = await medianPairMs(batch(large), batch(small), 31, 5)
  for (const journal of journals) journal.db.close()
  report('receipts of one turn (×200): journal of 100 000 vs 10 transactions', largeMs, smallMs, 1.2)
}

export async function benchJournal(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'retrace-bench-journal-'))
  try {
    await trustedWrites(work)
    await hundredFileApplyPatch(work)
    await receiptQuery(work)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

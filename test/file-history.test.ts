import { randomBytes, randomUUID } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, test } from 'vitest'
import type { Core } from '../src/main/core'
import { planWrite } from '../src/main/core/journal'
import { digestOf } from '../src/main/core/store'
import { resultOf } from './support/agent'
import { openProject, request, startCore } from './support/core'
import { tempDir } from './support/temp'
import { treeFingerprint } from './support/tree'

type Version = {
  version_id: string
  actor: 'user' | 'agent'
  session_id?: string
  session_archived?: boolean
  turn_id?: string
  turn_number?: number
  transaction_id: string
  revision: string
  size: number
  created_at_ms: number
  source: string
  path: string
  edits: number
  available: boolean
}
type History = { path: string; versions: Version[]; total: number; next_cursor: string | null }

const rev = (content: string | Buffer) => digestOf(Buffer.isBuffer(content) ? content : Buffer.from(content))

async function setup(files: Record<string, string | Buffer>, dataDir = tempDir('retrace-data-')) {
  const root = tempDir('retrace-history-')
  for (const [path, content] of Object.entries(files)) writeFileSync(join(root, path), content)
  const core = startCore({ dataDir })
  const project = await openProject(core, root)
  return { ...bind(core, project.projectId), root, dataDir, projectId: project.projectId }
}

function bind(core: Core, projectId: string) {
  const mutate = (action: string, payload: unknown, key: string = randomUUID()) =>
    core.handle({ request_id: randomUUID(), action, owner: { project_id: projectId }, idempotency_key: key, payload })
  const call = (action: string, payload: unknown, owner: Record<string, string> = {}) =>
    core.handle(request(action, payload, { project_id: projectId, ...owner }))
  const history = async (path: string) => resultOf((await call('files.history', { path })) as never) as History
  const save = async (path: string, content: string, expected: string | null, editSession?: string) =>
    resultOf(
      (await mutate('files.write', {
        path,
        content,
        expected_revision: expected,
        ...(editSession ? { edit_session_id: editSession } : {}),
      })) as never,
    ) as { transaction_id: string; revision: string }
  return { core, mutate, call, history, save }
}

/** One agent turn in a new session that writes `content` to `path`. */
async function agentWrites(core: Core, projectId: string, path: string, content: string, inSession?: string) {
  const created =
    inSession !== undefined
      ? { session_id: inSession }
      : (resultOf(
          (await core.handle(request('session.create', { title: 'Agent work' }, { project_id: projectId }))) as never,
        ) as { session_id: string })
  const begun = await core.turns.begin(projectId, created.session_id, 'change it')
  if (begun.kind !== 'ok') throw new Error(JSON.stringify(begun.error))
  const written = await core.turns.mutate(projectId, begun.result, (context) =>
    planWrite(context, { path, source: { content: Buffer.from(content) }, expected: null as never }).then(
      async (planned) =>
        planned.kind === 'error' && planned.error.code === 'CONFLICT'
          ? planWrite(context, {
              path,
              source: { content: Buffer.from(content) },
              expected: (planned.error.details as { actual_revision: string }).actual_revision,
            })
          : planned,
    ),
  )
  if (written.kind !== 'ok') throw new Error(JSON.stringify(written.error))
  await core.turns.finalize(projectId, begun.result, { parts: [], status: 'complete' })
  return { sessionId: created.session_id, turnId: begun.result.turn_id }
}

describe('File History', () => {
  test('an agent version names its turn by its place in the conversation ("Agent · turn 2")', async () => {
    const p = await setup({ 'notes.md': 'v0\n' })
    const first = await agentWrites(p.core, p.projectId, 'notes.md', 'v1 by agent\n')
    const second = await agentWrites(p.core, p.projectId, 'notes.md', 'v2 by agent\n', first.sessionId)
    const history = await p.history('notes.md')
    expect(history.versions.map((v) => [v.actor, v.turn_id, v.turn_number])).toEqual([
      ['agent', second.turnId, 2],
      ['agent', first.turnId, 1],
      ['user', undefined, undefined],
    ])
  })

  test('lists human and agent versions of one file newest first, with the original last', async () => {
    const p = await setup({ 'notes.md': 'v0\n' })
    await p.save('notes.md', 'v1\n', rev('v0\n'), 'edit-a')
    await p.save('notes.md', 'v2\n', rev('v1\n'), 'edit-a')
    const agent = await agentWrites(p.core, p.projectId, 'notes.md', 'v3 by agent\n')
    // A document switch gave the editor a new editing session: a new version.
    await p.save('notes.md', 'v4\n', rev('v3 by agent\n'), 'edit-b')
    const history = await p.history('notes.md')
    expect(history.versions.map((v) => [v.actor, v.source, v.revision, v.edits])).toEqual([
      ['user', 'edit', rev('v4\n'), 1],
      ['agent', 'edit', rev('v3 by agent\n'), 1],
      ['user', 'edit', rev('v2\n'), 2],
      ['user', 'original', rev('v0\n'), 1],
    ])
    const [, byAgent, , original] = history.versions
    expect(byAgent).toMatchObject({
      session_id: agent.sessionId,
      turn_id: agent.turnId,
      turn_number: 1,
      session_archived: false,
    })
    expect(history.versions[0]?.session_id).toBeUndefined()
    expect(original?.available).toBe(true)
    // Times never go backwards from oldest to newest.
    const times = history.versions.map((v) => v.created_at_ms)
    expect([...times].sort((a, b) => b - a)).toEqual(times)
    // Reading the original gives its exact bytes.
    const read = resultOf(
      (await p.call('files.read_version', { path: 'notes.md', version_id: original?.version_id })) as never,
    )
    expect(read).toEqual({ kind: 'text', path: 'notes.md', text: 'v0\n', revision: rev('v0\n'), size: 3 })
  })

  test('an edit made outside Retrace between two saves is kept as its own version', async () => {
    const p = await setup({ 'a.txt': 'zero' })
    await p.save('a.txt', 'one', rev('zero'), 's1')
    writeFileSync(join(p.root, 'a.txt'), 'from another editor')
    await p.save('a.txt', 'two', rev('from another editor'), 's1')
    const history = await p.history('a.txt')
    expect(history.versions.map((v) => [v.source, v.revision])).toEqual([
      ['edit', rev('two')],
      ['outside', rev('from another editor')],
      ['edit', rev('one')],
      ['original', rev('zero')],
    ])
  })

  test('restore_version with a stale expected_revision is CONFLICT and writes nothing', async () => {
    const p = await setup({ 'a.txt': 'first' })
    await p.save('a.txt', 'second', rev('first'), 's1')
    const original = (await p.history('a.txt')).versions.at(-1) as Version
    const before = treeFingerprint(p.root)
    const journalBefore = resultOf((await p.call('journal.transactions', {})) as never) as { revision: number }
    const refused = await p.mutate('files.restore_version', {
      path: 'a.txt',
      version_id: original.version_id,
      expected_revision: rev('first'),
    })
    expect(refused).toMatchObject({ status: 'error', error: { code: 'CONFLICT' } })
    expect(treeFingerprint(p.root)).toEqual(before)
    const journalAfter = resultOf((await p.call('journal.transactions', {})) as never) as { revision: number }
    expect(journalAfter.revision).toBe(journalBefore.revision)
  })

  test('restoring a version and then undoing the restore from History round-trips the bytes exactly', async () => {
    const original = randomBytes(4096)
    const edited = Buffer.concat([original.subarray(0, 100), randomBytes(50)])
    const p = await setup({ 'image.bin': original })
    resultOf(
      (await p.mutate('files.write', {
        path: 'image.bin',
        content_base64: edited.toString('base64'),
        expected_revision: rev(original),
      })) as never,
    )
    const first = await p.history('image.bin')
    const originalVersion = first.versions.find((v) => v.source === 'original') as Version
    const editedVersion = first.versions[0] as Version
    const key = randomUUID()
    const restored = resultOf(
      (await p.mutate(
        'files.restore_version',
        { path: 'image.bin', version_id: originalVersion.version_id, expected_revision: rev(edited) },
        key,
      )) as never,
    ) as { transaction_id: string; revision: string }
    expect(restored.revision).toBe(rev(original))
    expect(readFileSync(join(p.root, 'image.bin')).equals(original)).toBe(true)
    // The same key replays the result and writes nothing again.
    const replay = await p.mutate(
      'files.restore_version',
      { path: 'image.bin', version_id: originalVersion.version_id, expected_revision: rev(edited) },
      key,
    )
    expect(replay).toMatchObject({ status: 'ok', result: restored })

    const second = await p.history('image.bin')
    expect(second.versions[0]).toMatchObject({ source: 'restore', actor: 'user', revision: rev(original) })
    // The content the restore replaced is still there: restoring it undoes the restore.
    expect(second.versions[1]?.version_id).toBe(editedVersion.version_id)
    resultOf(
      (await p.mutate('files.restore_version', {
        path: 'image.bin',
        version_id: editedVersion.version_id,
        expected_revision: rev(original),
      })) as never,
    )
    expect(readFileSync(join(p.root, 'image.bin')).equals(edited)).toBe(true)

    // A binary version reads like files.read, with its bytes through the byte transfer.
    const read = resultOf(
      (await p.call('files.read_version', { path: 'image.bin', version_id: originalVersion.version_id })) as never,
    ) as { kind: string; url: string; revision: string; size: number }
    expect(read).toMatchObject({ kind: 'binary', revision: rev(original), size: original.length })
    const served = await p.core.serveBytes(read.url.split('/').at(-1) as string, {})
    const chunks: Uint8Array[] = []
    for await (const chunk of served.body ?? []) chunks.push(chunk)
    expect(Buffer.concat(chunks).equals(original)).toBe(true)
  })

  test('History survives a restart and is read from the records, never from the current file', async () => {
    const dataDir = tempDir('retrace-data-')
    const p = await setup({ 'a.txt': 'one' }, dataDir)
    await p.save('a.txt', 'two', rev('one'), 's1')
    const before = await p.history('a.txt')
    writeFileSync(join(p.root, 'a.txt'), 'changed while Retrace was closed')
    p.core.dispose()
    const core = startCore({ dataDir })
    const again = bind(core, p.projectId)
    const after = await again.history('a.txt')
    expect(after.versions).toEqual(before.versions)
    // An untouched file has no history at all.
    writeFileSync(join(p.root, 'b.txt'), 'never recorded')
    expect((await again.history('b.txt')).versions).toEqual([])
  })

  test("an archived session's versions stay readable; a deleted session's disappear", async () => {
    const dataDir = tempDir('retrace-data-')
    const p = await setup({ 'a.txt': 'start\n' }, dataDir)
    const agent = await agentWrites(p.core, p.projectId, 'a.txt', 'agent text\n')
    await p.call('session.update', { session_id: agent.sessionId, archived: true })
    const archived = await p.history('a.txt')
    const byAgent = archived.versions.find((v) => v.actor === 'agent') as Version
    expect(byAgent).toMatchObject({ session_id: agent.sessionId, session_archived: true, available: true })
    const read = await p.call('files.read_version', { path: 'a.txt', version_id: byAgent.version_id })
    expect(read).toMatchObject({ status: 'ok', result: { text: 'agent text\n' } })

    // No delete action exists yet: remove the session's row as a future delete would.
    const db = new DatabaseSync(join(p.core.dataDir, 'retrace.db'))
    db.exec('PRAGMA foreign_keys = OFF')
    db.prepare('DELETE FROM sessions WHERE session_id = ?').run(agent.sessionId)
    db.close()
    const deleted = await p.history('a.txt')
    expect(deleted.versions.map((v) => v.source)).toEqual(['original'])
    const gone = await p.call('files.read_version', { path: 'a.txt', version_id: byAgent.version_id })
    expect(gone).toMatchObject({ status: 'error', error: { code: 'NOT_FOUND' } })
  })
})

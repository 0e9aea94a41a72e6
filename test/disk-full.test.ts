import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, onTestFinished, test } from 'vitest'
import { agentFixture, toolParts } from './support/agent'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { createCore } from '../src/main/core'
import { digestOf } from '../src/main/core/store'
import { openProject, startCore, testHost } from './support/core'
import { smallDisk, smallDiskUnavailable, tempLookalikes } from './support/small-disk'
import { tempDir } from './support/temp'
import { envelope } from './support/protocol'

if (smallDiskUnavailable) console.log(`skipped: the disk-full tests — ${smallDiskUnavailable}`)

const MiB = 1024 * 1024

/**
 * What would have ended the host: an exception thrown from a timer or a rejection nobody handles
 * (Node exits on either). Collected for the current test and asserted empty.
 */
function watchForCrashes(): unknown[] {
  const crashes: unknown[] = []
  const onCrash = (error: unknown) => crashes.push(error)
  process.on('uncaughtException', onCrash)
  process.on('unhandledRejection', onCrash)
  onTestFinished(() => {
    process.off('uncaughtException', onCrash)
    process.off('unhandledRejection', onCrash)
  })
  return crashes
}

/** Longer than the workspace lock keeps its row after a release (150 ms), so that write is tried too. */
const pastLockLinger = () => new Promise((resolve) => setTimeout(resolve, 400))

const fakes: FakeLlmServer[] = []
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
})

describe.skipIf(smallDiskUnavailable !== null)('a full disk', () => {
  test('a save bigger than the space left in the project is NO_SPACE, leaves no temp file and the old bytes; it succeeds once space is back', async () => {
    const disk = smallDisk(4 * MiB)
    const root = join(disk.dir, 'project')
    mkdirSync(root)
    writeFileSync(join(root, 'notes.txt'), 'the old content\n')
    const core = startCore()
    const project = await openProject(core, root)
    const read = await project.call('files.read', { path: 'notes.txt' })
    const revision = (read as { result: { revision: string } }).result.revision

    disk.fill(256 * 1024)
    const big = 'x'.repeat(MiB)
    const key = randomUUID()
    const write = () =>
      core.handle(
        envelope(
          'files.write',
          { path: 'notes.txt', content: big, expected_revision: revision },
          { owner: { project_id: project.projectId }, key },
        ),
      )
    const refused = await write()
    expect(refused).toMatchObject({ status: 'error', error: { code: 'NO_SPACE', details: { path: 'notes.txt' } } })
    expect(tempLookalikes(root)).toEqual([])
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('the old content\n')
    expect(await core.handle(envelope('app.info', {}))).toMatchObject({ status: 'ok' })

    disk.free()
    const saved = await write()
    expect(saved).toMatchObject({ status: 'ok' })
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(big)
    expect(tempLookalikes(root)).toEqual([])
  })

  test('a save whose versions cannot be stored in a full data directory is NO_SPACE; nothing half-committed, history readable', async () => {
    const disk = smallDisk(8 * MiB)
    const dataDir = join(disk.dir, 'data')
    const root = tempDir('retrace-project-')
    writeFileSync(join(root, 'notes.txt'), 'first\n')
    const host = testHost()
    const core = startCore({ dataDir, host })
    const crashes = watchForCrashes()
    const project = await openProject(core, root)
    const write = (content: string, expected: string, key = randomUUID()) =>
      core.handle(
        envelope(
          'files.write',
          { path: 'notes.txt', content, expected_revision: expected },
          { owner: { project_id: project.projectId }, key },
        ),
      )
    const statuses = async () => {
      const listed = await project.call('journal.transactions', {})
      return (listed as { result: { transactions: Array<{ status: string }> } }).result.transactions.map(
        (t) => t.status,
      )
    }
    expect(await write('second\n', digestOf(Buffer.from('first\n')))).toMatchObject({ status: 'ok' })
    const secondRevision = digestOf(Buffer.from('second\n'))

    // Each amount of room left stops a different write first: the lock row (none), the 1 MiB
    // version blob with the settle row after it, or the blob alone after the file was published.
    for (const leave of [0, 16 * 1024, 64 * 1024, 256 * 1024, 768 * 1024]) {
      disk.fill(leave)
      const big = `${leave}`.padEnd(MiB, 'y')
      const refused = await write(big, secondRevision)
      expect(refused, `with ${leave} bytes left`).toMatchObject({
        status: 'error',
        error: { code: 'NO_SPACE', details: { reason: 'no-space', where: 'data' } },
      })
      expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('second\n')
      expect(await core.handle(envelope('app.info', {}))).toMatchObject({ status: 'ok' })
      expect(await project.call('files.history', { path: 'notes.txt' })).toMatchObject({
        status: 'ok',
        result: { total: 2 },
      })
      expect((await statuses()).filter((status) => status === 'committed')).toHaveLength(1)
      expect(readdirSync(join(dataDir, 'tmp'))).toEqual([])
      await pastLockLinger()
      disk.free()
    }

    const retried = await write('third\n', secondRevision)
    expect(retried).toMatchObject({ status: 'ok' })
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('third\n')
    // Every refused write ended aborted or rolled back once the disk took the row; none is left
    // prepared, none committed.
    const final = await statuses()
    expect(final[0]).toBe('committed')
    expect(final.at(-1)).toBe('committed')
    expect(final.slice(1, -1).every((status) => status === 'aborted' || status === 'rolled_back')).toBe(true)
    expect(host.entries.filter((entry) => entry.level === 'error')).toEqual([])
    expect(crashes).toEqual([])
  })

  test('a commit row the full disk refused: the file is put back, the answer is NO_SPACE, and the same key runs again once space is back', async () => {
    const disk = smallDisk(8 * MiB)
    const root = tempDir('retrace-project-')
    writeFileSync(join(root, 'notes.txt'), 'before\n')
    let fullAtCommit = true
    const core = createCore({
      dataDir: join(disk.dir, 'data'),
      host: testHost(),
      agent: { env: {}, ollamaUrl: null },
      // Stands for the disk filling between publishing the file and writing its commit row.
      fault: (phase) => {
        if (phase === 'before-commit' && fullAtCommit) disk.fill(0)
      },
    })
    onTestFinished(() => core.dispose())
    const crashes = watchForCrashes()
    const project = await openProject(core, root)
    const key = randomUUID()
    const write = () =>
      core.handle(
        envelope(
          'files.write',
          { path: 'notes.txt', content: 'after\n', expected_revision: digestOf(Buffer.from('before\n')) },
          { owner: { project_id: project.projectId }, key },
        ),
      )
    expect(await write()).toMatchObject({ status: 'error', error: { code: 'NO_SPACE', details: { where: 'data' } } })
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('before\n')
    expect(await core.handle(envelope('app.info', {}))).toMatchObject({ status: 'ok' })
    await pastLockLinger()

    fullAtCommit = false
    disk.free()
    expect(await write()).toMatchObject({ status: 'ok' })
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('after\n')
    const listed = await project.call('journal.transactions', {})
    expect(
      (listed as { result: { transactions: Array<{ status: string }> } }).result.transactions.map((t) => t.status),
    ).toEqual(['rolled_back', 'committed'])
    expect(crashes).toEqual([])
  })

  test('a write tool call that meets a full disk is NO_SPACE to the model; the turn goes on and the next call succeeds once space is back', async () => {
    const disk = smallDisk(16 * MiB)
    const root = join(disk.dir, 'project')
    mkdirSync(root)
    writeFileSync(join(root, 'keep.txt'), 'kept\n')
    const crashes = watchForCrashes()
    const llm = await startFakeOpenAI()
    fakes.push(llm)
    const big = 'z'.repeat(2 * MiB)
    llm.enqueue(
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'w1', name: 'write', input: { file_path: 'big.txt', content: big } }] }],
      },
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'w2', name: 'write', input: { file_path: 'big.txt', content: big } }] }],
      },
      { kind: 'stream', steps: [{ text: 'Written on the second try.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'ask', dataDir: join(disk.dir, 'data') })
    const turnId = await agent.prompt('Write big.txt')
    await agent.approvalFor(turnId, 'w1')
    disk.fill(256 * 1024)
    expect((await agent.session('session.approve', { tool_call_id: 'w1', decision: 'approve' })).status).toBe('ok')
    await agent.approvalFor(turnId, 'w2')
    disk.free()
    expect((await agent.session('session.approve', { tool_call_id: 'w2', decision: 'approve' })).status).toBe('ok')
    const finished = await agent.finished(turnId)

    expect(finished.status).toBe('complete')
    const tools = toolParts(await agent.turn(turnId))
    expect(tools.map((t) => [t.id, t.state, t.error?.code])).toEqual([
      ['w1', 'error', 'NO_SPACE'],
      ['w2', 'completed', undefined],
    ])
    expect(tools[0]?.error?.message).toContain('"big.txt" is full')
    expect(readFileSync(join(root, 'big.txt'), 'utf8')).toBe(big)
    expect(tempLookalikes(root)).toEqual([])
    expect(await agent.core.handle(envelope('app.info', {}))).toMatchObject({ status: 'ok' })
    expect(crashes).toEqual([])
  })
})

describe('start-up recovery and temp files', () => {
  test('removes the temp file of a transaction a crash left prepared, and never a look-alike the journal did not create', async () => {
    const root = tempDir()
    const dataDir = tempDir()
    mkdirSync(join(root, 'src'))
    writeFileSync(join(root, 'src', 'a.txt'), 'before\n')
    const request = {
      action: 'files.write',
      key: randomUUID(),
      payload: { path: 'src/a.txt', content: 'after\n', expected_revision: digestOf(Buffer.from('before\n')) },
    }
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(__dirname, 'support', 'crash-child.mts'), dataDir, root, JSON.stringify(request)],
      { env: { ...process.env, RETRACE_FAULT: 'after-temp-write' }, encoding: 'utf8', timeout: 60_000 },
    )
    expect(child.signal, child.stderr).toBe('SIGKILL')
    const ours = readdirSync(join(root, 'src')).filter((name) => name.startsWith('.retrace-tmp-'))
    expect(ours).toHaveLength(1)

    // Names of the same shape the journal never created: someone's files, kept byte for byte.
    const lookalikes = {
      [`src/.retrace-tmp-mtx_${randomUUID()}-0123abcd`]: 'not ours 1',
      [`.retrace-tmp-mtx_${randomUUID()}-recover-89abcdef`]: 'not ours 2',
      'src/.retrace-tmp-notes': 'not ours 3',
    }
    for (const [path, content] of Object.entries(lookalikes)) writeFileSync(join(root, path), content)

    const core = startCore({ dataDir })
    await core.ready
    expect(readFileSync(join(root, 'src', 'a.txt'), 'utf8')).toBe('before\n')
    expect(tempLookalikes(root).sort()).toEqual(Object.keys(lookalikes).sort())
    for (const [path, content] of Object.entries(lookalikes))
      expect(readFileSync(join(root, path), 'utf8')).toBe(content)
  })

  test.skipIf(smallDiskUnavailable !== null)(
    'a data disk still full at start-up leaves the crashed transaction prepared, serves requests, and settles it at the next start',
    async () => {
      const disk = smallDisk(8 * MiB)
      const dataDir = join(disk.dir, 'data')
      const root = tempDir()
      writeFileSync(join(root, 'a.txt'), 'before\n')
      const request = {
        action: 'files.write',
        key: randomUUID(),
        payload: { path: 'a.txt', content: 'after\n', expected_revision: digestOf(Buffer.from('before\n')) },
      }
      const child = spawnSync(
        process.execPath,
        ['--import', 'tsx', join(__dirname, 'support', 'crash-child.mts'), dataDir, root, JSON.stringify(request)],
        { env: { ...process.env, RETRACE_FAULT: 'after-temp-write' }, encoding: 'utf8', timeout: 60_000 },
      )
      expect(child.signal, child.stderr).toBe('SIGKILL')

      disk.fill(0)
      const first = startCore({ dataDir })
      const report = await first.ready
      expect(report.deferred).toHaveLength(1)
      expect(tempLookalikes(root)).toEqual([])
      expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('before\n')
      expect(await first.handle(envelope('app.info', {}))).toMatchObject({ status: 'ok' })
      first.dispose()

      disk.free()
      const second = startCore({ dataDir })
      expect(await second.ready).toMatchObject({ aborted: [report.deferred[0]], deferred: [] })
    },
  )
})

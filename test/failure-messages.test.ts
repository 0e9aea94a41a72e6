import { truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { translator } from '../src/renderer/src/i18n'
import { protocolErrorMessage } from '../src/renderer/src/ui/outcome-message'
import type { ProtocolError, ResponseEnvelope } from '../src/shared/protocol'
import { agentFixture, toolParts } from './support/agent'
import { openProject, startCore } from './support/core'
import { startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'
import { sendUntyped } from './support/protocol'
import { tempDir } from './support/temp'

const zh = translator('zh-CN')
const en = translator('en')

function failure(response: ResponseEnvelope): ProtocolError {
  if (response.status === 'ok') throw new Error(`expected a failure, got ${JSON.stringify(response.result)}`)
  return response.error
}

async function project() {
  const root = tempDir()
  writeFileSync(join(root, 'notes.md'), 'notes\n')
  // Sparse: over the 64 MiB read limit without writing 64 MiB.
  writeFileSync(join(root, 'big.log'), '')
  truncateSync(join(root, 'big.log'), 64 * 1024 * 1024 + 1)
  const core = startCore()
  const opened = await openProject(core, root)
  const call = (action: string, payload: unknown) =>
    sendUntyped(core, action, payload, { owner: { project_id: opened.projectId } })
  return { core, root, call, projectId: opened.projectId }
}

describe('the failures people meet reach the view with a reason and the details its sentence needs', () => {
  test('reading, listing, renaming and deleting: shown in Chinese in a Chinese UI', async () => {
    const { call } = await project()
    const missing = failure(await call('files.read', { path: 'gone.md' }))
    expect(missing).toMatchObject({ code: 'NOT_FOUND', details: { path: 'gone.md', reason: 'no-file' } })
    expect(protocolErrorMessage(missing, zh)).toBe('“gone.md”不存在。')
    expect(protocolErrorMessage(missing, en)).toBe(missing.message)

    const big = failure(await call('files.read', { path: 'big.log' }))
    expect(big).toMatchObject({
      code: 'TOO_LARGE',
      details: { path: 'big.log', limit: 64 * 1024 * 1024, reason: 'read-limit' },
    })
    expect(protocolErrorMessage(big, zh)).toBe('“big.log”超过了 64 MiB 的读取上限。')
    expect(protocolErrorMessage(big, en)).toBe(big.message)

    const listed = failure(await call('files.list', { path: 'notes.md' }))
    expect(listed).toMatchObject({ code: 'INVALID_REQUEST', details: { path: 'notes.md', reason: 'not-a-folder' } })
    expect(protocolErrorMessage(listed, zh)).toBe('“notes.md”不是文件夹。')

    const renamed = failure(
      await call('files.rename', { from: 'gone.md', to: 'other.md', expected_revision: `sha256:${'0'.repeat(64)}` }),
    )
    expect(renamed).toMatchObject({ code: 'NOT_FOUND', details: { path: 'gone.md', reason: 'no-file' } })
    expect(protocolErrorMessage(renamed, zh)).toBe('“gone.md”不存在。')

    const deleted = failure(await call('files.delete', { path: 'gone.md', expected_revision: null }))
    expect(deleted).toMatchObject({ code: 'NOT_FOUND', details: { path: 'gone.md', reason: 'no-file' } })
  })

  test('a name already taken says so in both languages, not that an edit was lost', async () => {
    const { call } = await project()
    const taken = failure(await call('files.write', { path: 'notes.md', content: 'x', expected_revision: null }))
    expect(taken).toMatchObject({ code: 'CONFLICT', details: { path: 'notes.md', reason: 'already-exists' } })
    expect(protocolErrorMessage(taken, en)).toBe('"notes.md" already exists.')
    expect(protocolErrorMessage(taken, zh)).toBe('“notes.md”已存在。')

    const stale = failure(
      await call('files.write', { path: 'notes.md', content: 'x', expected_revision: `sha256:${'0'.repeat(64)}` }),
    )
    expect(stale).toMatchObject({ code: 'CONFLICT', details: { path: 'notes.md', reason: 'baseline-mismatch' } })
    expect(protocolErrorMessage(stale, zh)).toBe('“notes.md”在读取之后发生了变化；请重新读取后再修改。')
  })

  test('opening a project folder that is a file, or is not there', async () => {
    const { core, root } = await project()
    const file = join(root, 'notes.md')
    const notFolder = failure(await sendUntyped(core, 'project.open', { path: file }))
    expect(notFolder).toMatchObject({ code: 'INVALID_REQUEST', details: { path: file, reason: 'not-a-folder' } })
    expect(protocolErrorMessage(notFolder, zh)).toBe(`“${file}”不是文件夹。`)

    const gone = join(root, 'no-such-folder')
    const absent = failure(await sendUntyped(core, 'project.open', { path: gone }))
    expect(absent).toMatchObject({ code: 'NOT_FOUND', details: { path: gone, reason: 'no-folder' } })
    expect(protocolErrorMessage(absent, zh)).toBe(`“${gone}”处没有文件夹。`)
  })
})

describe('undo and redo', () => {
  test('an undo or redo not offered says why, in Chinese too', async () => {
    const { core, call, projectId } = await project()
    const created = await call('session.create', { title: 'Undo', permission_mode: 'ask' })
    if (created.status !== 'ok') throw new Error(JSON.stringify(created.error))
    const owner = { project_id: projectId, session_id: (created.result as { session_id: string }).session_id }
    const undo = failure(await sendUntyped(core, 'history.plan', { operation: 'undo' }, { owner }))
    expect(undo).toMatchObject({ code: 'UNAVAILABLE', details: { operation: 'undo', reason: 'nothing-to-undo' } })
    expect(protocolErrorMessage(undo, en)).toBe(undo.message)
    expect(protocolErrorMessage(undo, zh)).toBe('此分支上没有修改过文件、可以撤销的轮次。')

    const redo = failure(await sendUntyped(core, 'history.plan', { operation: 'redo' }, { owner }))
    expect(redo).toMatchObject({ code: 'UNAVAILABLE', details: { reason: 'redo-after-undo' } })
    expect(protocolErrorMessage(redo, zh)).toBe('只有在撤销或回退之后才能立即重做。')
  })
})

describe('agent approvals', () => {
  const fakes: FakeLlmServer[] = []
  afterEach(async () => {
    for (const fake of fakes.splice(0)) await fake.close()
  })

  test('a busy session, an approval nobody waits for and an unread file each fail with their reason', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'unread.txt'), 'before\n')
    const llm = await startFakeOpenAI()
    fakes.push(llm)
    llm.enqueue(
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'w1', name: 'write', input: { file_path: 'unread.txt', content: 'agent\n' } }] }],
      },
      {
        kind: 'stream',
        steps: [{ toolCalls: [{ id: 'w2', name: 'write', input: { file_path: 'new.txt', content: 'x\n' } }] }],
      },
      { kind: 'stream', steps: [{ text: 'Done.' }] },
    )
    const agent = await agentFixture(root, llm, { mode: 'ask' })
    const turnId = await agent.prompt('overwrite unread.txt')
    await agent.approvalFor(turnId, 'w2')

    const busy = failure(await agent.session('session.prompt', { text: 'again' }))
    expect(busy).toMatchObject({ code: 'BUSY', details: { reason: 'turn-running' } })
    expect(protocolErrorMessage(busy, zh)).toBe('此会话中仍有一轮正在运行；请等待其结束或停止它。')

    const nobody = failure(await agent.session('session.approve', { tool_call_id: 'w9', decision: 'approve' }))
    expect(nobody).toMatchObject({ code: 'NOT_FOUND', details: { reason: 'no-pending-approval' } })
    expect(protocolErrorMessage(nobody, zh)).toBe('此会话中没有等待该批准的工具调用。')

    await agent.session('session.approve', { tool_call_id: 'w2', decision: 'reject' })
    await agent.finished(turnId)
    // Writing over a file the agent never read is refused before any approval is asked for.
    const unread = toolParts(await agent.turn(turnId)).find((part) => part.id === 'w1')
    expect(unread).toMatchObject({ state: 'error', error: { code: 'CONFLICT' } })
    expect(unread?.error?.message).toContain('already exists; read it before replacing it')
  })
})

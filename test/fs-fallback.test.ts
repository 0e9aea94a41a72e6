import { randomUUID } from 'node:crypto'
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import type { Core } from '../src/main/core'
import type { ResponseEnvelope } from '../src/shared/protocol'
import { tempDir } from './support/temp'
import { send } from './support/protocol'

/**
 * Where `/proc/self/fd` does not exist (macOS, Windows) project files are reached by path with
 * every folder's identity re-checked around each step. Forced here so the fallback runs on Linux.
 */
describe('path-recheck pinning (the non-Linux fallback)', () => {
  let core: Core
  let call: (action: string, payload: unknown, key?: boolean) => Promise<ResponseEnvelope>
  let root: string

  beforeAll(async () => {
    vi.stubEnv('RETRACE_FS_PINNING', 'path-recheck')
    vi.resetModules()
    const { PINNING_MODE } = await import('../src/main/core/project-fs')
    expect(PINNING_MODE).toBe('path-recheck')
    const { createCore } = await import('../src/main/core')
    root = realpathSync(tempDir())
    mkdirSync(join(root, 'src'))
    writeFileSync(join(root, 'src', 'a.txt'), 'alpha\n')
    core = createCore({
      dataDir: tempDir(),
      host: { shell: 'browser', appVersion: 't', log: () => {} },
      agent: { env: {}, ollamaUrl: null },
    })
    const opened = await send(core, 'project.open', { path: root })
    const projectId = (opened as { result: { project_id: string } }).result.project_id
    call = (action, payload, key = false) =>
      core.handle({
        request_id: randomUUID(),
        action,
        owner: { project_id: projectId },
        ...(key ? { idempotency_key: randomUUID() } : {}),
        payload,
      })
  })
  afterAll(() => {
    core?.dispose()
    vi.unstubAllEnvs()
    vi.resetModules()
  })

  test('reads, listings, writes into new folders, renames and deletes work the same', async () => {
    expect(await call('files.read', { path: 'src/a.txt' })).toMatchObject({ status: 'ok', result: { text: 'alpha\n' } })
    expect(await call('files.list', { path: 'src' })).toMatchObject({ result: { entries: [{ name: 'a.txt' }] } })
    const created = await call(
      'files.write',
      { path: 'new/deep/b.txt', content: 'beta\n', expected_revision: null },
      true,
    )
    expect(created.status).toBe('ok')
    expect(readFileSync(join(root, 'new', 'deep', 'b.txt'), 'utf8')).toBe('beta\n')
    const revision = (created as { result: { revision: string } }).result.revision
    expect(
      await call('files.rename', { from: 'new/deep/b.txt', to: 'src/b.txt', expected_revision: revision }, true),
    ).toMatchObject({ status: 'ok' })
    expect(await call('files.delete', { path: 'src/b.txt', expected_revision: revision }, true)).toMatchObject({
      status: 'ok',
    })
    expect(await call('files.list', { path: 'src' })).toMatchObject({ result: { total: 1 } })
  })
})

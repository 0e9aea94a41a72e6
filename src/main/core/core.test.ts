import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { openProject, request, startCore, testHost } from '../../../test/support/core'
import { tempDir } from '../../../test/support/temp'
import { treeFingerprint } from '../../../test/support/tree'

describe('request envelopes', () => {
  test('a request without a request_id is INVALID_REQUEST with a null id and no effect', async () => {
    const core = startCore()
    const response = await core.handle({ action: 'project.open', owner: {}, payload: { path: tempDir() } })
    expect(response).toMatchObject({ request_id: null, status: 'error', error: { code: 'INVALID_REQUEST' } })
    const list = await core.handle(request('project.list', {}))
    expect(list).toMatchObject({ status: 'ok', result: { projects: [] } })
  })

  test('a non-UUID request_id is refused and echoed back so the sender can match it', async () => {
    const core = startCore()
    const response = await core.handle({ request_id: 'req-1', action: 'project.list', owner: {}, payload: {} })
    expect(response).toMatchObject({ request_id: 'req-1', action: 'project.list', status: 'error' })
    expect(response.status === 'error' && response.error.code).toBe('INVALID_REQUEST')
  })

  test('unknown actions, bad payloads and non-objects are INVALID_REQUEST', async () => {
    const core = startCore()
    for (const raw of [request('files.nuke', {}), request('project.open', { path: 7 }), null, 'text', [1, 2], 42]) {
      const response = await core.handle(raw)
      expect(response.status).toBe('error')
      expect(response.status === 'error' && response.error.code).toBe('INVALID_REQUEST')
    }
  })

  test('a project action without owner.project_id, or with an unknown one, is refused', async () => {
    const core = startCore()
    const noOwner = await core.handle(request('files.list', { path: '' }))
    expect(noOwner.status === 'error' && noOwner.error.code).toBe('INVALID_REQUEST')
    const unknown = await core.handle(request('files.list', { path: '' }, { project_id: 'prj_nope' }))
    expect(unknown.status === 'error' && unknown.error.code).toBe('NOT_FOUND')
  })

  test('every response echoes request_id, action and owner', async () => {
    const core = startCore()
    const sent = request('project.list', {})
    const response = await core.handle(sent)
    expect(response).toMatchObject({ request_id: sent.request_id, action: 'project.list', owner: {} })
  })
})

describe('projects', () => {
  test('opening a folder registers it once with a stable project_id that survives a restart', async () => {
    const dataDir = tempDir()
    const folder = tempDir()
    const first = startCore({ dataDir })
    const a = await openProject(first, folder)
    const again = await openProject(first, `${folder}/`)
    expect(again.projectId).toBe(a.projectId)
    first.dispose()
    const second = startCore({ dataDir })
    const listed = await second.handle(request('project.list', {}))
    expect(listed).toMatchObject({ status: 'ok', result: { projects: [{ project_id: a.projectId, root: a.root }] } })
  })

  test('is_git tells whether the folder is a git work tree', async () => {
    const core = startCore()
    const folder = tempDir()
    execFileSync('git', ['init', '-q', folder])
    const response = await core.handle(request('project.open', { path: folder }))
    expect(response).toMatchObject({ status: 'ok', result: { is_git: true } })
  })

  test.each([
    ['relative', () => 'some/folder', 'INVALID_REQUEST'],
    ['missing', () => join(tempDir(), 'missing'), 'NOT_FOUND'],
    [
      'a file',
      () => {
        const file = join(tempDir(), 'f.txt')
        writeFileSync(file, 'x')
        return file
      },
      'INVALID_REQUEST',
    ],
  ])('opening a %s path fails with %s and registers nothing', async (_name, makePath, code) => {
    const core = startCore()
    const response = await core.handle(request('project.open', { path: makePath() }))
    expect(response.status === 'error' && response.error.code).toBe(code)
    expect(await core.handle(request('project.list', {}))).toMatchObject({ result: { projects: [] } })
  })

  test("Retrace's own data folder cannot be opened as a project", async () => {
    const dataDir = tempDir()
    const core = startCore({ dataDir })
    const response = await core.handle(request('project.open', { path: dataDir }))
    expect(response.status === 'error' && response.error.code).toBe('PERMISSION_DENIED')
  })

  test('opening a project emits project.opened to subscribers', async () => {
    const core = startCore()
    const seen: string[] = []
    const subscription = core.onEvent((frame) => seen.push(frame.event))
    await openProject(core, tempDir())
    subscription.dispose()
    await openProject(core, tempDir())
    expect(seen).toEqual(['project.opened'])
  })

  test('the folder picker is only offered where the shell has one', async () => {
    const browser = startCore()
    const refused = await browser.handle(request('project.pick', {}))
    expect(refused.status === 'error' && refused.error.code).toBe('UNSUPPORTED')
    const folder = tempDir()
    const desktop = startCore({ host: testHost({ shell: 'desktop', pickFolder: async () => folder }) })
    expect(await desktop.handle(request('app.info', {}))).toMatchObject({
      result: { shell: 'desktop', can_pick_folder: true },
    })
    expect(await desktop.handle(request('project.pick', {}))).toMatchObject({
      status: 'ok',
      result: { kind: 'opened', project: { name: expect.any(String) } },
    })
    const cancelled = startCore({ host: testHost({ pickFolder: async () => null }) })
    expect(await cancelled.handle(request('project.pick', {}))).toMatchObject({ result: { kind: 'cancelled' } })
  })
})

describe('files.list', () => {
  function bigFolder(count: number): string {
    const root = tempDir()
    for (let i = 0; i < count; i++) writeFileSync(join(root, `file-${String(i).padStart(4, '0')}.txt`), `${i}\n`)
    for (const dir of ['zeta', 'Alpha', 'beta']) mkdirSync(join(root, dir))
    return root
  }

  test('lists directories first, then files by name, 100 at a time with an opaque cursor', async () => {
    const core = startCore()
    const project = await openProject(core, bigFolder(250))
    const first = await project.call('files.list', { path: '' })
    expect(first.status).toBe('ok')
    if (first.status !== 'ok') return
    const page1 = first.result as { entries: Array<{ name: string; kind: string }>; next_cursor: string; total: number }
    expect(page1.total).toBe(253)
    expect(page1.entries).toHaveLength(100)
    expect(page1.entries.slice(0, 3).map((e) => [e.name, e.kind])).toEqual([
      ['Alpha', 'dir'],
      ['beta', 'dir'],
      ['zeta', 'dir'],
    ])
    expect(page1.next_cursor).not.toMatch(/offset|100/)
    const names = page1.entries.map((e) => e.name)
    let cursor: string | null = page1.next_cursor
    while (cursor !== null) {
      const next = await project.call('files.list', { path: '', cursor })
      if (next.status !== 'ok') throw new Error(JSON.stringify(next))
      const result = next.result as { entries: Array<{ name: string }>; next_cursor: string | null }
      names.push(...result.entries.map((e) => e.name))
      cursor = result.next_cursor
    }
    expect(names).toHaveLength(253)
    expect(new Set(names).size).toBe(253)
    expect(names.slice(3)).toEqual(
      readdirSync(project.root)
        .filter((n) => n.startsWith('file-'))
        .sort(),
    )
  })

  test('a page after the directory changed is STALE_SNAPSHOT, never a mix of two scans', async () => {
    const core = startCore()
    const project = await openProject(core, bigFolder(150))
    const first = await project.call('files.list', { path: '' })
    const cursor = first.status === 'ok' ? (first.result as { next_cursor: string }).next_cursor : ''
    writeFileSync(join(project.root, 'file-0000-new.txt'), 'new')
    const second = await project.call('files.list', { path: '', cursor })
    expect(second).toMatchObject({ status: 'error', error: { code: 'STALE_SNAPSHOT' } })
  })

  test('a tampered, foreign or other-path cursor is STALE_SNAPSHOT', async () => {
    const core = startCore()
    const project = await openProject(core, bigFolder(150))
    const other = await openProject(core, bigFolder(150))
    mkdirSync(join(project.root, 'Alpha', 'x'))
    const first = await project.call('files.list', { path: '' })
    const cursor = first.status === 'ok' ? (first.result as { next_cursor: string }).next_cursor : ''
    const [body = '', mac = ''] = cursor.split('.')
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>
    const forged = `${Buffer.from(JSON.stringify({ ...claims, offset: 1 })).toString('base64url')}.${mac}`
    for (const [call, payload] of [
      [project.call, { path: '', cursor: forged }],
      [project.call, { path: '', cursor: 'garbage' }],
      [project.call, { path: 'Alpha', cursor }],
      [other.call, { path: '', cursor }],
    ] as const) {
      expect(await call('files.list', payload)).toMatchObject({ status: 'error', error: { code: 'STALE_SNAPSHOT' } })
    }
  })

  test('git internals and the data directory are never listed', async () => {
    const root = tempDir()
    execFileSync('git', ['init', '-q', root])
    writeFileSync(join(root, 'a.txt'), 'a')
    const dataDir = join(root, '.retrace-data')
    const core = startCore({ dataDir })
    const project = await openProject(core, root)
    const listed = await project.call('files.list', { path: '' })
    expect(listed).toMatchObject({ status: 'ok', result: { total: 1, entries: [{ name: 'a.txt' }] } })
    for (const path of ['.git', '.git/config', '.retrace-data']) {
      const response = await project.call(path.includes('config') ? 'files.read' : 'files.list', { path })
      expect(response).toMatchObject({ status: 'error', error: { code: 'PERMISSION_DENIED' } })
    }
  })

  test("the journal's in-flight temp files are not listed; a person's own file with that prefix is", async () => {
    const root = tempDir()
    writeFileSync(join(root, 'a.txt'), 'a')
    writeFileSync(join(root, '.retrace-tmp-mtx_0f8c2d7e-1b2a-4c3d-9e8f-001122334455-abcd1234'), 'partial')
    writeFileSync(join(root, '.retrace-tmp-notes.txt'), 'mine')
    const project = await openProject(startCore(), root)
    expect(await project.call('files.list', { path: '' })).toMatchObject({
      result: { total: 2, entries: [{ name: '.retrace-tmp-notes.txt' }, { name: 'a.txt' }] },
    })
    // The user's file is an ordinary file for every operation; only exact journal temp names are reserved.
    expect(await project.call('files.read', { path: '.retrace-tmp-notes.txt' })).toMatchObject({
      result: { text: 'mine' },
    })
  })

  test('names that are not UTF-8 are left out rather than shown under a lossy name', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'ok.txt'), 'a')
    writeFileSync(Buffer.concat([Buffer.from(`${root}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]), 'b')
    const core = startCore()
    const project = await openProject(core, root)
    expect(await project.call('files.list', { path: '' })).toMatchObject({
      result: { total: 1, entries: [{ name: 'ok.txt' }] },
    })
  })
})

describe('files.read', () => {
  test('a text file comes back as text with its sha256 revision and size', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'hello.ts'), 'export const x = 1\r\n')
    const project = await openProject(startCore(), root)
    expect(await project.call('files.read', { path: 'hello.ts' })).toMatchObject({
      status: 'ok',
      result: {
        kind: 'text',
        text: 'export const x = 1\r\n',
        size: 20,
        revision: `sha256:${createHash('sha256').update('export const x = 1\r\n').digest('hex')}`,
      },
    })
  })

  test('binary content is never returned as text: only type, size and revision', async () => {
    const root = tempDir()
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')
    writeFileSync(join(root, 'pixel.png'), png)
    writeFileSync(join(root, 'blob.bin'), Buffer.from([1, 0, 2, 0, 3]))
    writeFileSync(join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]))
    const project = await openProject(startCore(), root)
    const image = await project.call('files.read', { path: 'pixel.png' })
    expect(image).toMatchObject({ status: 'ok', result: { kind: 'binary', mime: 'image/png', size: png.length } })
    expect(image.status === 'ok' && 'text' in (image.result as object)).toBe(false)
    expect(await project.call('files.read', { path: 'blob.bin' })).toMatchObject({
      result: { kind: 'binary', mime: 'application/octet-stream', size: 5 },
    })
    expect(await project.call('files.read', { path: 'latin1.txt' })).toMatchObject({
      result: { kind: 'binary', mime: 'text/plain', size: 4 },
    })
  })

  test('a file over the read limit is TOO_LARGE with its size, and is not read', async () => {
    const root = tempDir()
    const big = join(root, 'huge.log')
    writeFileSync(big, '')
    truncateSync(big, 64 * 1024 * 1024 + 1)
    const project = await openProject(startCore(), root)
    expect(await project.call('files.read', { path: 'huge.log' })).toMatchObject({
      status: 'error',
      error: { code: 'TOO_LARGE', details: { size: 64 * 1024 * 1024 + 1, limit: 64 * 1024 * 1024 } },
    })
  })

  test('zero-byte files are empty text', async () => {
    const root = tempDir()
    writeFileSync(join(root, 'empty'), '')
    const project = await openProject(startCore(), root)
    expect(await project.call('files.read', { path: 'empty' })).toMatchObject({
      result: { kind: 'text', text: '', size: 0 },
    })
  })

  test('symlinks inside the project are followed; escapes are PERMISSION_DENIED', async () => {
    const root = tempDir()
    const outside = tempDir()
    writeFileSync(join(outside, 'secret.txt'), 'secret')
    writeFileSync(join(root, 'real.txt'), 'inside')
    symlinkSync(join(root, 'real.txt'), join(root, 'alias.txt'))
    symlinkSync(join(outside, 'secret.txt'), join(root, 'leak.txt'))
    symlinkSync(outside, join(root, 'outdir'))
    symlinkSync(join(root, '.git-like'), join(root, 'dangling'))
    const project = await openProject(startCore(), root)
    expect(await project.call('files.read', { path: 'alias.txt' })).toMatchObject({ result: { text: 'inside' } })
    for (const [action, path] of [
      ['files.read', 'leak.txt'],
      ['files.read', 'outdir/secret.txt'],
      ['files.list', 'outdir'],
      ['files.read', '../' + 'x'],
      ['files.read', '/etc/passwd'],
      ['files.list', 'a/../..'],
    ] as const) {
      expect(await project.call(action, { path })).toMatchObject({
        status: 'error',
        error: { code: 'PERMISSION_DENIED' },
      })
    }
    expect(await project.call('files.read', { path: 'dangling' })).toMatchObject({ error: { code: 'NOT_FOUND' } })
  })

  test('refusals have zero side effects on the project or outside it', async () => {
    const root = tempDir()
    const outside = tempDir()
    writeFileSync(join(outside, 'secret.txt'), 'secret')
    symlinkSync(outside, join(root, 'outdir'))
    writeFileSync(join(root, 'a.txt'), 'a')
    const before = [treeFingerprint(root), treeFingerprint(outside)]
    const project = await openProject(startCore(), root)
    for (const path of ['outdir', 'outdir/secret.txt', '../', '..', 'a.txt/x', 'nope', 'a//b']) {
      await project.call('files.read', { path })
      await project.call('files.list', { path })
    }
    expect([treeFingerprint(root), treeFingerprint(outside)]).toEqual(before)
  })

  test('directories, devices and pipes are refused with their own codes', async () => {
    const root = tempDir()
    mkdirSync(join(root, 'dir'))
    execFileSync('mkfifo', [join(root, 'pipe')])
    const project = await openProject(startCore(), root)
    expect(await project.call('files.read', { path: 'dir' })).toMatchObject({ error: { code: 'INVALID_REQUEST' } })
    expect(await project.call('files.read', { path: 'pipe' })).toMatchObject({ error: { code: 'UNSUPPORTED' } })
    expect(await project.call('files.list', { path: 'pipe' })).toMatchObject({ error: { code: 'INVALID_REQUEST' } })
  })
})

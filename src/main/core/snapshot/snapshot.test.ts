import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { tempDir } from '../../../../test/support/temp'
import { treeFingerprint } from '../../../../test/support/tree'
import { blobOid, createSnapshotService, type Capture, type PlannedFile, type SnapshotServiceOptions } from '.'

const services: Array<{ dispose(): void }> = []
afterEach(() => {
  for (const service of services.splice(0)) service.dispose()
})

/** A real git repository with one commit, in its own temp folder (real path, as projects are opened). */
function gitProject(files: Record<string, string | Buffer> = { 'keep.txt': 'keep\n', 'edit.txt': 'one\n' }) {
  const root = realpathSync(tempDir('retrace-snap-'))
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'pipe' }).toString('utf8')
  git('init', '-q', '-b', 'main')
  git('config', 'user.email', 'test@example.com')
  git('config', 'user.name', 'Test')
  write(root, files)
  git('add', '-A')
  git('commit', '-q', '-m', 'initial')
  return { root, git }
}

function write(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), content)
  }
}

function snapshots(root: string, extra: Partial<SnapshotServiceOptions> = {}) {
  const dataDir = realpathSync(tempDir('retrace-snap-data-'))
  const service = createSnapshotService({ dataDir, maintenance: false, ...extra })
  services.push(service)
  return { dataDir, service, project: service.project({ project_id: 'prj_test', root }) }
}

function hashOf(capture: Capture): string {
  if (capture.kind !== 'snapshot') throw new Error(`no snapshot: ${capture.reason} ${capture.message}`)
  return capture.hash
}

function byPath(planned: readonly PlannedFile[]): Record<string, PlannedFile> {
  return Object.fromEntries(planned.map((p) => [p.path, p]))
}

function bytesOf(file: PlannedFile | undefined): string | null {
  if (!file) throw new Error('not planned')
  return file.target.kind === 'regular' ? (file.target.bytes?.toString('utf8') ?? null) : file.target.kind
}

describe('track and the six methods', () => {
  test('a command that creates, modifies and deletes files: the patch lists all three and revert plans them back byte-exactly', async () => {
    const { root } = gitProject({ 'keep.txt': 'keep\n', 'edit.txt': 'one\n', 'gone.txt': 'bye\n' })
    const { project } = snapshots(root)
    const start = hashOf(await project.track())
    write(root, { 'new.txt': 'hi\n', 'edit.txt': 'two\n' })
    rmSync(join(root, 'gone.txt'))
    const end = hashOf(await project.track())

    const files = await project.changedPaths(start, end)
    expect(files).toEqual({ kind: 'ok', result: ['edit.txt', 'gone.txt', 'new.txt'] })
    const patched = await project.patch(start)
    expect(patched).toEqual({ kind: 'ok', result: { hash: end, files: ['edit.txt', 'gone.txt', 'new.txt'] } })

    const planned = await project.revert([{ hash: start, after: end, files: ['edit.txt', 'gone.txt', 'new.txt'] }])
    if (planned.kind !== 'ok') throw new Error(planned.error.message)
    const plan = byPath(planned.result)
    expect(bytesOf(plan['edit.txt'])).toBe('one\n')
    expect(bytesOf(plan['gone.txt'])).toBe('bye\n')
    expect(plan['new.txt']?.target).toEqual({ kind: 'absent' })
    expect(plan['new.txt']?.created).toBe(true)
    expect(plan['gone.txt']?.created).toBe(false)
    // What the step left: compared by the caller with the disk to find later edits.
    expect(plan['edit.txt']?.left).toMatchObject({ kind: 'regular', oid: blobOid(Buffer.from('two\n')) })
    expect(plan['gone.txt']?.left).toEqual({ kind: 'absent' })
    // Deletions are planned first.
    expect(planned.result[0]?.path).toBe('new.txt')
    // Snapshots never write project files.
    expect(readFileSync(join(root, 'edit.txt'), 'utf8')).toBe('two\n')
    expect(existsSync(join(root, 'new.txt'))).toBe(true)
  })

  test('a file in several patches is planned from the earliest one', async () => {
    const { root } = gitProject({ 'a.txt': 'v1\n' })
    const { project } = snapshots(root)
    const s0 = hashOf(await project.track())
    write(root, { 'a.txt': 'v2\n' })
    const s1 = hashOf(await project.track())
    write(root, { 'a.txt': 'v3\n' })
    const s2 = hashOf(await project.track())
    const planned = await project.revert([
      { hash: s0, after: s1, files: ['a.txt'] },
      { hash: s1, after: s2, files: ['a.txt'] },
    ])
    if (planned.kind !== 'ok') throw new Error(planned.error.message)
    expect(planned.result).toHaveLength(1)
    expect(bytesOf(planned.result[0])).toBe('v1\n')
    expect(planned.result[0]?.source).toBe(s0)
    expect(planned.result[0]?.left).toMatchObject({ oid: blobOid(Buffer.from('v3\n')) })
  })

  test('diff, diffFull and restore read the snapshot trees; restore never deletes', async () => {
    const { root } = gitProject({ 'a.txt': 'one\ntwo\n', 'b.bin': Buffer.from([0, 1, 2, 3]) })
    const { project } = snapshots(root)
    const start = hashOf(await project.track())
    write(root, { 'a.txt': 'one\nTWO\nthree\n', 'b.bin': Buffer.from([0, 9]), 'c.txt': 'new\n' })
    const end = hashOf(await project.track())

    const full = await project.diffFull(start, end)
    if (full.kind !== 'ok') throw new Error(full.error.message)
    expect(full.result).toEqual([
      expect.objectContaining({ path: 'a.txt', operation: 'modify', added: 2, removed: 1, binary: false }),
      expect.objectContaining({ path: 'b.bin', operation: 'modify', added: null, removed: null, binary: true }),
      expect.objectContaining({
        path: 'c.txt',
        operation: 'create',
        before: { kind: 'absent' },
        after: { kind: 'regular', mode: '100644', oid: blobOid(Buffer.from('new\n')), size: 4 },
      }),
    ])
    const text = await project.diff(start)
    if (text.kind !== 'ok') throw new Error(text.error.message)
    expect(text.result.text).toContain('+TWO')
    expect(text.result.text).toContain('diff --git a/c.txt b/c.txt')

    const restored = await project.restore(start)
    if (restored.kind !== 'ok') throw new Error(restored.error.message)
    expect(restored.result.map((p) => p.path)).toEqual(['a.txt', 'b.bin'])
    expect(bytesOf(byPath(restored.result)['a.txt'])).toBe('one\ntwo\n')
    const blob = byPath(restored.result)['b.bin']?.target
    expect(blob?.kind === 'regular' && [...(blob.bytes ?? [])]).toEqual([0, 1, 2, 3])
  })

  test('unicode, spaces, quotes and glob characters in names: present files never look absent', async () => {
    const names = [
      'ünïcødé 文件.txt',
      'sp ace "quoted".txt',
      "it's.txt",
      'star*.txt',
      '[x].txt',
      ':colon.txt',
      'tab\tname.txt',
      'back\\slash.txt',
      'new\nline.txt',
    ]
    const { root } = gitProject(Object.fromEntries(names.map((n) => [`dir ü/${n}`, 'before\n'])))
    const { project } = snapshots(root)
    const start = hashOf(await project.track())
    write(root, Object.fromEntries(names.map((n) => [`dir ü/${n}`, 'after\n'])))
    write(root, { 'dir ü/brand "new" ü.txt': 'created\n' })
    const end = hashOf(await project.track())
    const files = await project.changedPaths(start, end)
    const expected = [...names.map((n) => `dir ü/${n}`), 'dir ü/brand "new" ü.txt'].sort()
    expect(files.kind === 'ok' && [...files.result].sort()).toEqual(expected)
    const planned = await project.revert([{ hash: start, after: end, files: expected }])
    if (planned.kind !== 'ok') throw new Error(planned.error.message)
    const plan = byPath(planned.result)
    for (const name of names) expect(bytesOf(plan[`dir ü/${name}`])).toBe('before\n')
    expect(plan['dir ü/brand "new" ü.txt']?.created).toBe(true)
    // Only the glob-looking name itself, never every file it would match as a pattern.
    const entries = await project.entries(end, ['dir ü/star*.txt'])
    expect(entries.kind === 'ok' && [...entries.result.keys()]).toEqual(['dir ü/star*.txt'])
  })

  test('a file ↔ folder swap across steps is planned deletions first, then writes', async () => {
    const { root } = gitProject({ 'a/x.txt': 'inside\n', 'b.txt': 'file\n' })
    const { project } = snapshots(root)
    const s0 = hashOf(await project.track())
    rmSync(join(root, 'a'), { recursive: true })
    write(root, { a: 'now a file\n' })
    rmSync(join(root, 'b.txt'))
    write(root, { 'b.txt/y.txt': 'now a folder\n' })
    const s1 = hashOf(await project.track())
    const files = await project.changedPaths(s0, s1)
    expect(files).toEqual({ kind: 'ok', result: ['a', 'a/x.txt', 'b.txt', 'b.txt/y.txt'] })
    const planned = await project.revert([{ hash: s0, after: s1, files: ['a', 'a/x.txt', 'b.txt', 'b.txt/y.txt'] }])
    if (planned.kind !== 'ok') throw new Error(planned.error.message)
    expect(planned.result.map((p) => [p.path, p.target.kind])).toEqual([
      ['b.txt/y.txt', 'absent'],
      ['a', 'absent'],
      ['b.txt', 'regular'],
      ['a/x.txt', 'regular'],
    ])
    expect(bytesOf(byPath(planned.result)['a/x.txt'])).toBe('inside\n')
  })
})

describe('what snapshots leave out', () => {
  test('an untracked file over 2 MiB is excluded, listed, and never planned for deletion', async () => {
    const { root } = gitProject()
    const big = Buffer.alloc(3 * 1024 * 1024, 7)
    write(root, { 'data/big.bin': big })
    const { project } = snapshots(root)
    const first = await project.track()
    expect(first).toMatchObject({
      kind: 'snapshot',
      excluded: [{ path: 'data/big.bin', reason: 'large', size: big.length }],
    })
    const start = hashOf(first)
    rmSync(join(root, 'data/big.bin'))
    write(root, { 'made.bin': big })
    const end = hashOf(await project.track())
    const files = await project.changedPaths(start, end)
    expect(files).toEqual({ kind: 'ok', result: [] })
    const entries = await project.entries(end, ['made.bin', 'data/big.bin'])
    expect(entries.kind === 'ok' && entries.result.size).toBe(0)
  })

  test('gitignored files and the user info/exclude are never captured; a nested repository is not descended into', async () => {
    const { root, git } = gitProject({ '.gitignore': 'ignored/\n*.log\n', 'keep.txt': 'k\n' })
    writeFileSync(join(root, '.git', 'info', 'exclude'), 'private.txt\n')
    mkdirSync(join(root, 'nested'))
    execFileSync('git', ['-C', join(root, 'nested'), 'init', '-q'])
    write(root, { 'nested/inner.txt': 'inner\n', 'ignored/a.txt': 'a\n', 'x.log': 'log\n', 'private.txt': 'p\n' })
    const { project } = snapshots(root)
    const start = await project.track()
    expect(start).toMatchObject({ kind: 'snapshot', excluded: [{ path: 'nested', reason: 'nested-repository' }] })
    write(root, {
      'nested/inner.txt': 'changed\n',
      'ignored/a.txt': 'changed\n',
      'x.log': 'more\n',
      'private.txt': 'q\n',
    })
    const end = hashOf(await project.track())
    expect(await project.changedPaths(hashOf(start), end)).toEqual({ kind: 'ok', result: [] })
    const entries = await project.entries(end, [
      'nested/inner.txt',
      'ignored/a.txt',
      'x.log',
      'private.txt',
      'keep.txt',
    ])
    expect(entries.kind === 'ok' && [...entries.result.keys()]).toEqual(['keep.txt'])
    expect(git('status', '--porcelain')).toContain('?? nested/')
  })

  test('content the user repository converts (eol=crlf) is captured as the bytes on disk', async () => {
    const { root, git } = gitProject({ '.gitattributes': '*.crlf eol=crlf\n', 'a.crlf': 'one\ntwo\n' })
    rmSync(join(root, 'a.crlf'))
    git('checkout', '--', 'a.crlf')
    const disk = readFileSync(join(root, 'a.crlf'))
    expect(disk.toString('utf8')).toBe('one\r\ntwo\r\n')
    const { project } = snapshots(root)
    const hash = hashOf(await project.track())
    const entries = await project.entries(hash, ['a.crlf'])
    expect(entries.kind === 'ok' && entries.result.get('a.crlf')).toMatchObject({ oid: blobOid(disk) })
  })
})

describe('the user repository is only read', () => {
  test('HEAD, index, refs and every other file under .git are byte-identical after every method and maintenance', async () => {
    const { root, git } = gitProject({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
    git('branch', 'side')
    git('stash', 'list')
    write(root, { 'a.txt': 'staged\n' })
    git('add', 'a.txt')
    write(root, { 'a.txt': 'unstaged\n', 'u.txt': 'untracked\n' })
    const before = treeFingerprint(join(root, '.git'))
    // Retrace started from a git hook inherits GIT_INDEX_FILE: the shadow must not follow it.
    process.env.GIT_INDEX_FILE = join(root, '.git', 'index')
    try {
      const { project } = snapshots(root)
      const s0 = hashOf(await project.track())
      write(root, { 'b.txt': 'changed\n', 'c.txt': 'new\n' })
      const s1 = hashOf(await project.track())
      await project.patch(s0)
      await project.diff(s0)
      await project.diffFull(s0, s1)
      await project.restore(s0)
      await project.revert([{ hash: s0, after: s1, files: ['b.txt', 'c.txt'] }])
      const maintained = await project.maintain()
      expect(maintained.gc).toBe('done')
    } finally {
      delete process.env.GIT_INDEX_FILE
    }
    expect(treeFingerprint(join(root, '.git'))).toEqual(before)
  })

  test('a non-git project takes no snapshot and says why; snapshot: false says so too', async () => {
    const plain = realpathSync(tempDir('retrace-plain-'))
    write(plain, { 'a.txt': 'a\n' })
    const { project, dataDir } = snapshots(plain)
    const capture = await project.track()
    expect(capture).toMatchObject({ kind: 'none', reason: 'not-git' })
    expect(capture.kind === 'none' && capture.message).toMatch(/not a git repository/)
    expect(existsSync(join(dataDir, 'snapshot', 'prj_test'))).toBe(false)

    const { root } = gitProject()
    const off = snapshots(root, { enabled: () => false })
    expect(await off.project.track()).toMatchObject({ kind: 'none', reason: 'disabled' })
  })
})

describe('failures are "no snapshot", never an older tree', () => {
  test('a file rewritten while it was being captured: retried once, then "raced" with its path', async () => {
    const { root } = gitProject({ 'a.txt': 'a\n' })
    let writes = 0
    const { project } = snapshots(root, {
      afterStage: () => {
        writes += 1
        write(root, { 'a.txt': `rewritten ${writes} ${'x'.repeat(writes)}\n` })
      },
    })
    write(root, { 'a.txt': 'changed\n' })
    const capture = await project.track()
    expect(capture).toMatchObject({ kind: 'none', reason: 'raced', paths: ['a.txt'] })
  })

  test('a race that settles is retried and the snapshot holds the final bytes', async () => {
    const { root } = gitProject({ 'a.txt': 'a\n' })
    const { project } = snapshots(root, {
      afterStage: (attempt) => {
        if (attempt === 0) write(root, { 'a.txt': 'final bytes\n' })
      },
    })
    write(root, { 'a.txt': 'changed\n' })
    const hash = hashOf(await project.track())
    const entries = await project.entries(hash, ['a.txt'])
    expect(entries.kind === 'ok' && entries.result.get('a.txt')).toMatchObject({
      oid: blobOid(Buffer.from('final bytes\n')),
    })
  })

  test('objects pruned from the user repository are detected and the shadow is reseeded', async () => {
    const { root, git } = gitProject({ 'a.txt': 'a\n' })
    write(root, { 'only-staged.txt': 'never committed\n' })
    git('add', 'only-staged.txt')
    const { project } = snapshots(root)
    const first = await project.track()
    expect(first).toMatchObject({ kind: 'snapshot', reseeded: false })
    // The shadow borrowed that blob from the user's index; the user unstages it and prunes.
    git('rm', '-q', '--cached', 'only-staged.txt')
    git('gc', '-q', '--prune=now')
    const oid = blobOid(Buffer.from('never committed\n'))
    expect(() => git('cat-file', '-e', oid)).toThrow()
    const second = await project.track()
    expect(second).toMatchObject({ kind: 'snapshot', reseeded: true })
    const blobs = await project.readBlobs([oid])
    expect(blobs.kind === 'ok' && blobs.result.get(oid)?.toString('utf8')).toBe('never committed\n')
    expect(await project.track()).toMatchObject({ kind: 'snapshot', reseeded: false })
  })
})

describe('index.lock', () => {
  test('a stale index.lock left by a killed git is cleared; a live one is waited for and never deleted', async () => {
    const { root } = gitProject()
    const { project } = snapshots(root, { indexLockWaitMs: 60_000 })
    hashOf(await project.track())
    const lock = join(project.gitDir, 'index.lock')

    // A live git holding the shadow index: update-index takes the lock before reading stdin.
    const { spawn } = await import('node:child_process')
    const holder = spawn(
      'git',
      [`--git-dir=${project.gitDir}`, `--work-tree=${root}`, 'update-index', '--index-info'],
      {
        stdio: ['pipe', 'ignore', 'ignore'],
      },
    )
    for (let i = 0; i < 200 && !existsSync(lock); i++) await new Promise((r) => setTimeout(r, 10))
    expect(existsSync(lock)).toBe(true)
    write(root, { 'edit.txt': 'while locked\n' })
    let settled = false
    const waiting = project.track().then((capture) => {
      settled = true
      return capture
    })
    await new Promise((r) => setTimeout(r, 300))
    expect(settled).toBe(false)
    expect(existsSync(lock)).toBe(true)
    holder.stdin.end()
    const capture = await waiting
    const entries = await project.entries(hashOf(capture), ['edit.txt'])
    expect(entries.kind === 'ok' && entries.result.get('edit.txt')).toMatchObject({
      oid: blobOid(Buffer.from('while locked\n')),
    })

    // Killed while holding it: the lock file stays behind, and nobody is running.
    const killed = spawn(
      'git',
      [`--git-dir=${project.gitDir}`, `--work-tree=${root}`, 'update-index', '--index-info'],
      {
        stdio: ['pipe', 'ignore', 'ignore'],
      },
    )
    for (let i = 0; i < 200 && !existsSync(lock); i++) await new Promise((r) => setTimeout(r, 10))
    killed.kill('SIGKILL')
    await new Promise((r) => killed.once('exit', r))
    expect(existsSync(lock)).toBe(true)
    write(root, { 'edit.txt': 'after the crash\n' })
    const recovered = await project.track()
    expect(recovered.kind).toBe('snapshot')
    expect(existsSync(lock)).toBe(false)
  })

  test('a live lock that outlasts the wait answers busy and is left in place', async () => {
    const { root } = gitProject()
    const { project } = snapshots(root, { indexLockWaitMs: 200 })
    hashOf(await project.track())
    const { spawn } = await import('node:child_process')
    const holder = spawn(
      'git',
      [`--git-dir=${project.gitDir}`, `--work-tree=${root}`, 'update-index', '--index-info'],
      {
        stdio: ['pipe', 'ignore', 'ignore'],
      },
    )
    const lock = join(project.gitDir, 'index.lock')
    for (let i = 0; i < 200 && !existsSync(lock); i++) await new Promise((r) => setTimeout(r, 10))
    try {
      expect(await project.track()).toMatchObject({ kind: 'none', reason: 'busy' })
      expect(existsSync(lock)).toBe(true)
    } finally {
      holder.stdin.end()
      await new Promise((r) => holder.once('exit', r))
    }
  })
})

describe('maintenance', () => {
  test('gc keeps the snapshots it must and removes temp packs left by killed git processes', async () => {
    const { root } = gitProject({ 'a.txt': 'a\n' })
    const { project } = snapshots(root)
    write(root, { 'a.txt': 'kept\n' })
    const hash = hashOf(await project.track())
    const temp = join(project.gitDir, 'objects', 'pack', 'tmp_pack_left')
    mkdirSync(join(temp, '..'), { recursive: true })
    writeFileSync(temp, 'partial')
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000)
    utimesSync(temp, old, old)
    const report = await project.maintain()
    expect(report).toMatchObject({ gc: 'done', removedTemp: 1, reseeded: false })
    expect(existsSync(temp)).toBe(false)
    const entries = await project.entries(hash, ['a.txt'])
    expect(entries.kind === 'ok' && entries.result.get('a.txt')).toMatchObject({ oid: blobOid(Buffer.from('kept\n')) })
  })
})

describe('one lock per shadow repository', () => {
  test('two processes snapshotting one project serialise: their holds never overlap and every capture succeeds', async () => {
    const { root } = gitProject()
    const dataDir = realpathSync(tempDir('retrace-snap-shared-'))
    const child = join(__dirname, '..', '..', '..', '..', 'test', 'support', 'snapshot-child.mts')
    const { spawn } = await import('node:child_process')
    const run = (name: string) =>
      new Promise<string>((resolve, reject) => {
        const proc = spawn(process.execPath, ['--import', 'tsx', child, dataDir, root, '6', name], {
          stdio: ['ignore', 'pipe', 'pipe'],
        })
        let out = ''
        let err = ''
        proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
        proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')))
        proc.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${name} exited ${code}: ${err}`))))
      })
    const outputs = await Promise.all([run('first'), run('second')])
    const holds: Array<[number, number]> = []
    for (const output of outputs) {
      const lines = output.trim().split('\n')
      expect(lines.filter((l) => !l.startsWith('acquired') && !l.startsWith('released'))).toEqual(
        Array.from({ length: 6 }, () => expect.stringMatching(/^snapshot [0-9a-f]{40}$/)),
      )
      let start: number | null = null
      for (const line of lines) {
        const [event, at] = line.split(' ')
        if (event === 'acquired') start = Number(at)
        if (event === 'released' && start !== null) {
          holds.push([start, Number(at)])
          start = null
        }
      }
    }
    expect(holds).toHaveLength(12)
    holds.sort((a, b) => a[0] - b[0])
    for (const [index, [start]] of holds.entries()) {
      if (index > 0) expect(start).toBeGreaterThanOrEqual(holds[index - 1]?.[1] ?? 0)
    }
    // Both processes' last writes are in a snapshot taken afterwards.
    const service = createSnapshotService({ dataDir, maintenance: false })
    services.push(service)
    const project = service.project({ project_id: 'prj_shared', root })
    const hash = hashOf(await project.track())
    const entries = await project.entries(hash, ['first-5.txt', 'second-5.txt'])
    expect(entries.kind === 'ok' && entries.result.get('first-5.txt')).toMatchObject({
      oid: blobOid(Buffer.from('first 5\n')),
    })
    expect(entries.kind === 'ok' && entries.result.get('second-5.txt')).toMatchObject({
      oid: blobOid(Buffer.from('second 5\n')),
    })
  })
})

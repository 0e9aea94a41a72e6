import { execFileSync } from 'node:child_process'
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import type { EventFrame } from '../../../shared/protocol'
import { openProject, startCore } from '../../../../test/support/core'
import { tempDir } from '../../../../test/support/temp'
import { watchProject, type ChangeBatch } from './project-watcher'

function collect() {
  const batches: ChangeBatch[] = []
  return { batches, paths: () => batches.flatMap((b) => b.paths) }
}

test('reports created and edited files in debounced batches, and nothing .gitignore ignores', async () => {
  const root = realpathSync(tempDir('retrace-watch-'))
  const data = join(root, '.retrace-data')
  mkdirSync(join(root, 'src'))
  mkdirSync(join(root, 'build'))
  mkdirSync(data)
  writeFileSync(join(root, '.gitignore'), 'build/\n*.log\n')
  writeFileSync(join(root, 'src', '.gitignore'), 'generated.ts\n')
  writeFileSync(join(root, 'src', 'main.ts'), 'one\n')
  const seen = collect()
  const watcher = watchProject({ root, dataDir: data, onChange: (b) => seen.batches.push(b), onError: () => {} })
  try {
    await watcher.ready
    writeFileSync(join(root, 'build', 'out.js'), 'x')
    writeFileSync(join(root, 'debug.log'), 'x')
    writeFileSync(join(root, 'src', 'generated.ts'), 'x')
    writeFileSync(join(data, 'retrace.db'), 'x')
    writeFileSync(join(root, 'src', 'main.ts'), 'two\n')
    writeFileSync(join(root, 'src', 'new.ts'), 'new\n')
    await expect
      .poll(() => seen.paths(), { timeout: 5_000 })
      .toEqual(expect.arrayContaining(['src/main.ts', 'src/new.ts']))
    // Give stragglers a chance: ignored paths never show up, however long we wait for them.
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(seen.paths().filter((p) => !p.startsWith('src/main') && p !== 'src/new.ts')).toEqual([])
    expect(seen.batches.every((b) => b.truncated === false)).toBe(true)
  } finally {
    watcher.dispose()
  }
})

test('a burst larger than the bound is announced as truncated, not as thousands of paths', async () => {
  const root = realpathSync(tempDir('retrace-watch-'))
  const seen = collect()
  const watcher = watchProject({
    root,
    dataDir: tempDir('retrace-watch-data-'),
    limits: { maxPathsPerEvent: 10, debounceMs: 300 },
    onChange: (b) => seen.batches.push(b),
    onError: () => {},
  })
  try {
    await watcher.ready
    for (let i = 0; i < 30; i++) writeFileSync(join(root, `f${i}.txt`), 'x')
    await expect.poll(() => seen.batches.some((b) => b.truncated), { timeout: 5_000 }).toBe(true)
    expect(Math.max(...seen.batches.map((b) => b.paths.length))).toBeLessThanOrEqual(10)
  } finally {
    watcher.dispose()
  }
})

test('the engine announces files.changed for a project a window shows, scoped to it, and git.status decorates', async () => {
  const root = realpathSync(tempDir('retrace-watch-project-'))
  execFileSync('git', ['-C', root, 'init', '-q'])
  writeFileSync(join(root, 'tracked.txt'), 'a\n')
  execFileSync('git', ['-C', root, 'add', '-A'])
  execFileSync('git', ['-C', root, '-c', 'user.email=t@e', '-c', 'user.name=T', 'commit', '-qm', 'init'])
  const core = startCore()
  const frames: EventFrame[] = []
  core.onEvent((frame) => frames.push(frame))
  const project = await openProject(core, root)
  // A window lists the project it shows, and the watcher starts with that; give its first scan a
  // moment on a busy machine.
  expect((await project.call('files.list', { path: '' })).status).toBe('ok')
  await new Promise((resolve) => setTimeout(resolve, 300))
  writeFileSync(join(root, 'outside.txt'), 'made by another program\n')
  writeFileSync(join(root, 'tracked.txt'), 'b\n')
  await expect
    .poll(
      () => frames.filter((f) => f.event === 'files.changed').flatMap((f) => (f.data as { paths: string[] }).paths),
      {
        timeout: 5_000,
      },
    )
    .toEqual(expect.arrayContaining(['outside.txt', 'tracked.txt']))
  const changed = frames.find((f) => f.event === 'files.changed')
  expect(changed?.owner).toEqual({ project_id: project.projectId })
  const status = await project.call('git.status', {})
  expect(status.status).toBe('ok')
  const entries = (status as { result: { entries: Array<{ path: string; state: string }> } }).result.entries
  expect(entries).toEqual(
    expect.arrayContaining([
      { path: 'outside.txt', state: 'untracked' },
      { path: 'tracked.txt', state: 'modified' },
    ]),
  )
})

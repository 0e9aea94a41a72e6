import { spawn } from 'node:child_process'
import { chmodSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { tempDir } from '../../../../test/support/temp'
import { createBlobStore, digestOf } from './blobs'
import { openDatabase } from './database'
import { MIGRATIONS } from './migrations'
import { createWorkspaceLock } from './workspace-lock'

function database() {
  const dir = tempDir()
  const file = join(dir, 'retrace.db')
  const db = openDatabase(file)
  db.prepare("INSERT INTO projects VALUES ('prj_1', '/r', 'r', 0, 0)").run()
  db.prepare("INSERT INTO workspaces (workspace_id, project_id, root) VALUES ('ws_1', 'prj_1', '/r')").run()
  return { dir, file, db }
}

describe('content store', () => {
  test('stores by digest, deduplicates, and verifies every read', async () => {
    const { dir, db } = database()
    const blobs = createBlobStore(dir, db)
    const digest = await blobs.put(Buffer.from('hello'))
    expect(digest).toBe(digestOf(Buffer.from('hello')))
    expect(await blobs.put(Buffer.from('hello'))).toBe(digest)
    expect(blobs.pathOf(digest)).toMatch(/blobs\/sha256\/[0-9a-f]{2}\/[0-9a-f]{62}$/)
    expect(await blobs.read(digest)).toEqual({ kind: 'ok', result: Buffer.from('hello') })
  })

  test('a flipped byte is UNAVAILABLE (corrupt), never returned as content', async () => {
    const { dir, db } = database()
    const blobs = createBlobStore(dir, db)
    const digest = await blobs.put(Buffer.from('precious bytes'))
    chmodSync(blobs.pathOf(digest), 0o600)
    writeFileSync(blobs.pathOf(digest), 'precious bytez')
    expect(await blobs.read(digest)).toMatchObject({
      kind: 'error',
      error: { code: 'UNAVAILABLE', details: { reason: 'corrupt' } },
    })
    expect(await blobs.read(digestOf(Buffer.from('never stored')))).toMatchObject({
      kind: 'error',
      error: { code: 'UNAVAILABLE', details: { reason: 'missing' } },
    })
  })

  test('sweep removes only unreferenced blobs past the grace period', async () => {
    const { dir, db } = database()
    const blobs = createBlobStore(dir, db)
    const kept = await blobs.put(Buffer.from('referenced'))
    const orphan = await blobs.put(Buffer.from('orphan'))
    const young = await blobs.put(Buffer.from('young orphan'))
    db.prepare("INSERT INTO blob_refs VALUES (?, 'transaction', 'mtx_1')").run(kept)
    const { utimesSync } = await import('node:fs')
    const old = new Date(Date.now() - 60_000)
    for (const digest of [kept, orphan]) utimesSync(blobs.pathOf(digest), old, old)
    const swept = await blobs.sweep({ graceMs: 30_000 })
    expect(swept.removed).toEqual([orphan])
    expect(existsSync(blobs.pathOf(kept))).toBe(true)
    expect(existsSync(blobs.pathOf(young))).toBe(true)
  })

  test('a concurrent writer that re-stores an old unreferenced blob never loses it to a sweep', async () => {
    const { dir, db } = database()
    const blobs = createBlobStore(dir, db)
    const bytes = Buffer.from('about to be referenced again')
    const digest = await blobs.put(bytes)
    const { utimesSync } = await import('node:fs')
    const old = new Date(Date.now() - 60_000)
    utimesSync(blobs.pathOf(digest), old, old)
    // The writer dedups onto the existing blob (refreshing its age) while a sweep runs, then commits its reference.
    const [, swept] = await Promise.all([blobs.put(bytes), blobs.sweep({ graceMs: 30_000 })])
    db.prepare("INSERT INTO blob_refs VALUES (?, 'transaction', 'mtx_2')").run(digest)
    if (swept.removed.includes(digest)) {
      // The sweep won the race before the refresh; the writer's put must then have re-created it.
      expect(existsSync(blobs.pathOf(digest))).toBe(true)
    }
    expect(await blobs.read(digest)).toEqual({ kind: 'ok', result: bytes })
  })
})

describe('workspace mutation lock', () => {
  test('is exclusive within a process and hands over in order', async () => {
    const { file } = database()
    const lock = createWorkspaceLock(openDatabase(file, { synchronous: 'OFF' }))
    const first = await lock.acquire('ws_1')
    if (first.kind !== 'ok') throw new Error('no lock')
    const order: string[] = []
    const second = lock.acquire('ws_1').then((lease) => {
      order.push('second')
      return lease
    })
    await new Promise((resolve) => setTimeout(resolve, 50))
    order.push('first releases')
    first.result.release()
    const lease = await second
    expect(order).toEqual(['first releases', 'second'])
    if (lease.kind === 'ok') lease.result.release()
    const timedOut = await (async () => {
      const held = await lock.acquire('ws_1')
      const other = await lock.acquire('ws_1', { timeoutMs: 100 })
      if (held.kind === 'ok') held.result.release()
      return other
    })()
    expect(timedOut).toMatchObject({ kind: 'error', error: { code: 'BUSY' } })
  })

  test('holds across two real processes, and a dead holder is detected and replaced', async () => {
    const { file } = database()
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', join(__dirname, '../../../../test/support/lock-holder.mts'), file, 'ws_1'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (chunk: Buffer) =>
        chunk.toString().includes('held') ? resolve() : reject(new Error(chunk.toString())),
      )
      holder.once('exit', () => reject(new Error('holder exited')))
    })
    const lock = createWorkspaceLock(openDatabase(file, { synchronous: 'OFF' }))
    expect(await lock.acquire('ws_1', { timeoutMs: 300 })).toMatchObject({ kind: 'error', error: { code: 'BUSY' } })
    const exited = new Promise((resolve) => holder.once('exit', resolve))
    holder.kill('SIGKILL')
    await exited
    const taken = await lock.acquire('ws_1', { timeoutMs: 2000 })
    expect(taken.kind).toBe('ok')
    if (taken.kind === 'ok') taken.result.release()
  })
})

describe('opening one new data directory from several processes at once', () => {
  test('every process opens the engine database and the shadow lock file, and the schema is migrated once', async () => {
    const dir = tempDir()
    const goFile = join(dir, 'go')
    const files = [join(dir, 'retrace.db'), join(dir, 'locks.sqlite'), goFile]
    const children = Array.from({ length: 6 }, () =>
      spawn(
        process.execPath,
        ['--import', 'tsx', join(__dirname, '../../../../test/support/open-race-child.mts'), ...files],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      ),
    )
    const outputs = children.map((child) => {
      let text = ''
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()))
      return new Promise<string>((resolve) => child.once('exit', () => resolve(text)))
    })
    const ready = children.map(
      (child) =>
        new Promise<void>((resolve) =>
          child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve()),
        ),
    )
    await Promise.all(ready)
    writeFileSync(goFile, '')
    const results = (await Promise.all(outputs)).map((text) => text.replace('ready\n', '').trim())
    expect(results).toEqual(Array.from({ length: 6 }, () => `opened ${MIGRATIONS.length} leased`))
  }, 60_000)
})

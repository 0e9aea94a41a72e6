import 'fake-indexeddb/auto'
import { describe, expect, test, vi } from 'vitest'
import type { ChannelStatus, FrameChannel } from '../../../transport/channel'
import { RequestClient } from '../../../transport/request-client'
import { dirtyPathsOf, openDraftStore, openEditor } from '../../drafts'
import { createEmitter, type MountedDocument } from '../adapters/types'
import { WorkingCopyService } from './service'
import { TextWorkingCopy } from './text-working-copy'

/**
 * The engine's side of `files.write` and `files.read` as the protocol defines them (spec 08):
 * whole-file writes checked against the revision they expect (`CONFLICT` with the actual revision
 * otherwise), each write recorded with its editing session. Anything else is answered as unknown.
 */
function engine() {
  // A revision names one version of a file (the engine's is a digest; a counter is as unique here).
  const files = new Map<string, { bytes: Uint8Array; revision: string }>()
  let versions = 0
  const nextRevision = () => `sha256:${(++versions).toString(16).padStart(64, '0')}`
  const writes: Array<{ path: string; content: string; expected: string | null; session: string | undefined }> = []
  const listeners = new Set<(frame: unknown) => void>()
  let failNext: string | null = null
  const revisionOf = (path: string) => files.get(path)?.revision ?? null
  const answer = (frame: unknown) => queueMicrotask(() => listeners.forEach((listener) => listener(frame)))
  const channel: FrameChannel = {
    status: 'open' as ChannelStatus,
    send(raw) {
      const frame = raw as { request_id: string; action: string; owner: object; payload: Record<string, unknown> }
      const reply = (result: unknown) =>
        answer({ request_id: frame.request_id, action: frame.action, owner: frame.owner, status: 'ok', result })
      const error = (code: string, message: string, details?: object) =>
        answer({
          request_id: frame.request_id,
          action: frame.action,
          owner: frame.owner,
          status: 'error',
          error: { code, message, ...(details ? { details } : {}) },
        })
      const path = String(frame.payload.path)
      if (frame.action === 'files.write') {
        const { content, content_base64, expected_revision, edit_session_id } = frame.payload as {
          content?: string
          content_base64?: string
          expected_revision: string | null
          edit_session_id?: string
        }
        const bytes =
          content !== undefined
            ? new TextEncoder().encode(content)
            : Uint8Array.from(atob(content_base64 ?? ''), (c) => c.charCodeAt(0))
        if (failNext !== null) {
          const message = failNext
          failNext = null
          return (error('NO_SPACE', message), true)
        }
        if (expected_revision !== revisionOf(path))
          return (error('CONFLICT', 'The file changed.', { actual_revision: revisionOf(path) }), true)
        files.set(path, { bytes, revision: nextRevision() })
        writes.push({
          path,
          content: new TextDecoder().decode(bytes),
          expected: expected_revision,
          session: edit_session_id,
        })
        reply({ transaction_id: `tx${writes.length}`, revision: revisionOf(path) })
      } else error('INVALID_REQUEST', frame.action)
      return true
    },
    onFrame(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    onStatus: () => () => {},
    close() {},
  }
  return {
    client: new RequestClient(channel),
    writes,
    /** Someone else (the agent, another window) writes the file. */
    writeOutside(path: string, text: string) {
      files.set(path, { bytes: new TextEncoder().encode(text), revision: nextRevision() })
      return revisionOf(path)
    },
    put(path: string, text: string) {
      return this.writeOutside(path, text)
    },
    revisionOf,
    text: (path: string) => new TextDecoder().decode(files.get(path)?.bytes),
    failNextWrite(message: string) {
      failNext = message
    },
  }
}

let counter = 0
function setup() {
  const host = engine()
  const projectId = `prj_wc${++counter}`
  const store = openDraftStore({ name: `working-copy-test-${counter}` })
  const service = new WorkingCopyService({ client: host.client, projectId, drafts: () => store, delayMs: 20 })
  const dirty = () => [...dirtyPathsOf(projectId).get()]
  return { host, projectId, service, store, dirty }
}

/** A byte editor as the adapters are: bytes out through `export()`, `changed` when edited. */
function byteEditor(initial: string) {
  const events = createEmitter()
  let content = initial
  const mounted: MountedDocument = {
    on: events.on,
    update: () => {},
    viewState: () => undefined,
    setDark: () => {},
    export: async () => new Blob([content]),
    destroy: () => {},
  }
  return {
    mounted,
    edit(next: string) {
      content = next
      events.emit('changed', { revision: '' })
    },
  }
}

describe('working-copy service', () => {
  test('save: a text edit is a durable draft, then one write against the revision it started from', async () => {
    const { host, projectId, service, store, dirty } = setup()
    const revision = host.put('notes.md', 'one')
    const copy = await service.textCopy('notes.md', { revision, size: 3 })
    await copy.change('one two')
    expect((await (await store).get(projectId, 'notes.md'))?.content).toEqual({ kind: 'text', text: 'one two' })
    expect(dirty()).toEqual(['notes.md'])
    await vi.waitFor(() => expect(host.writes).toHaveLength(1))
    expect(host.writes[0]).toMatchObject({ content: 'one two', expected: revision })
    await vi.waitFor(() => expect(dirty()).toEqual([]))
    expect(await (await store).get(projectId, 'notes.md')).toBeUndefined()
    expect(copy.revision).toBe(host.revisionOf('notes.md'))
    // The explorer sees the same copy (rename and delete wait for it).
    await copy.change('one two three')
    expect(await openEditor(projectId, 'notes.md')?.flush()).toBe(true)
    expect(host.text('notes.md')).toBe('one two three')
  })

  test('revert: the unpublished change and its draft go, and nothing is written', async () => {
    const { host, projectId, service, store, dirty } = setup()
    const revision = host.put('a.txt', 'disk')
    const copy = await service.textCopy('a.txt', { revision, size: 4 })
    await copy.change('mine')
    await copy.revert()
    expect(copy.dirty).toBe(false)
    expect(dirty()).toEqual([])
    expect(await (await store).get(projectId, 'a.txt')).toBeUndefined()
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(host.writes).toEqual([])
    expect(host.text('a.txt')).toBe('disk')
  })

  test('conflict: a file changed underneath keeps the draft and writes only on "keep mine and overwrite"', async () => {
    const { host, projectId, service, store } = setup()
    const revision = host.put('b.txt', 'base')
    const copy = await service.textCopy('b.txt', { revision, size: 4 })
    const outside = host.writeOutside('b.txt', 'theirs')
    await copy.change('mine')
    await vi.waitFor(() => expect(copy.getState().problem).toEqual({ kind: 'conflict', actualRevision: outside }))
    expect(host.text('b.txt')).toBe('theirs')
    expect((await (await store).get(projectId, 'b.txt'))?.state).toBe('conflict')
    // A read of the file while the draft is unpublished keeps what the person typed.
    expect(copy.reconcile(outside)).toBe('mine')
    expect(await copy.overwrite(outside)).toBe(true)
    expect(host.text('b.txt')).toBe('mine')
    expect(host.writes.at(-1)).toMatchObject({ expected: outside })
  })

  test('conflict (bytes): a byte editor holds its bytes until the person decides; revert shows the disk', async () => {
    const { host, service } = setup()
    const revision = host.put('c.pdf', 'pdf-0') ?? ''
    const editor = byteEditor('pdf-0')
    const copy = service.bytesCopy('c.pdf', editor.mounted, { revision, size: 5, mime: 'application/pdf' }, null)
    editor.edit('pdf-1')
    const outside = host.writeOutside('c.pdf', 'pdf-theirs')
    await vi.waitFor(() => expect(copy.getState().problem).toEqual({ kind: 'conflict', actualRevision: outside }))
    expect(host.text('c.pdf')).toBe('pdf-theirs')
    await copy.revert(outside)
    expect(copy.dirty).toBe(false)
    // The next read reloads the view with the disk's bytes; after that, our revision is ours.
    expect(copy.reconcile(outside)).toBe('disk')
    expect(copy.reconcile(outside)).toBe('mine')
    expect(host.writes).toEqual([])
  })

  test('text and byte saves group into editing sessions the same way: one per visit, a new one after leaving', async () => {
    const { host, service } = setup()
    const textRevision = host.put('t.md', 'a')
    const text = await service.textCopy('t.md', { revision: textRevision, size: 1 })
    const editor = byteEditor('img-0')
    const bytesRevision = host.put('i.png', 'img-0') ?? ''
    const bytes = service.bytesCopy(
      'i.png',
      editor.mounted,
      { revision: bytesRevision, size: 5, mime: 'image/png' },
      null,
    )
    const sessions = (path: string) => host.writes.filter((w) => w.path === path).map((w) => w.session)
    for (const step of ['b', 'c']) {
      await text.change(`a${step}`)
      editor.edit(`img-${step}`)
      expect(await text.save()).toBe(true)
      expect(await bytes.save()).toBe(true)
    }
    // The tab is left; what was typed before leaving is still published with its own session.
    await text.change('ad')
    editor.edit('img-d')
    await service.leave('t.md')
    await service.leave('i.png')
    await text.change('ae')
    editor.edit('img-e')
    expect(await text.save()).toBe(true)
    expect(await bytes.save()).toBe(true)
    for (const path of ['t.md', 'i.png']) {
      const [first, second, third, fourth] = sessions(path)
      expect(first).toEqual(expect.any(String))
      expect([second, third]).toEqual([first, first])
      expect(fourth).not.toBe(first)
    }
  })

  test('dispose: closing the tab publishes what is left and releases the copy; a failed publish keeps it and its dot', async () => {
    const { host, projectId, service, dirty } = setup()
    const revision = host.put('d.txt', 'x')
    const copy = await service.textCopy('d.txt', { revision, size: 1 })
    await copy.change('xy')
    service.releaseClosed(new Set())
    await vi.waitFor(() => expect(openEditor(projectId, 'd.txt')).toBeUndefined())
    expect(host.text('d.txt')).toBe('xy')
    expect(service.get('d.txt')).toBeUndefined()
    expect(dirty()).toEqual([])

    const kept = await service.textCopy('e.txt', { revision: host.put('e.txt', 'e'), size: 1 })
    expect(kept).toBeInstanceOf(TextWorkingCopy)
    host.failNextWrite('disk full')
    await kept.change('e2')
    service.releaseClosed(new Set())
    await vi.waitFor(() => expect(kept.getState().problem).toEqual({ kind: 'failed', message: 'disk full' }))
    expect(service.get('e.txt')).toBe(kept)
    expect(dirty()).toEqual(['e.txt'])
    // Reopening the file finds the same copy; Retry publishes it.
    expect(await service.textCopy('e.txt', { revision: null, size: 0 })).toBe(kept)
    expect(await kept.retry()).toBe(true)
    await service.dispose()
    expect(service.get('e.txt')).toBeUndefined()
    expect(host.text('e.txt')).toBe('e2')
  })

  test('a tab closed and opened again while its last publish travels keeps its working copy', async () => {
    const { host, projectId, service } = setup()
    const copy = await service.textCopy('f.txt', { revision: host.put('f.txt', 'f'), size: 1 })
    await copy.change('f1')
    service.releaseClosed(new Set())
    // Reopened before the final publish answered: the new view is given the same copy.
    expect(await service.textCopy('f.txt', { revision: null, size: 0 })).toBe(copy)
    service.releaseClosed(new Set(['f.txt']))
    await vi.waitFor(() => expect(host.text('f.txt')).toBe('f1'))
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(service.get('f.txt')).toBe(copy)
    expect(openEditor(projectId, 'f.txt')).toBeDefined()
    await copy.change('f2')
    expect(await copy.save()).toBe(true)
    expect(host.text('f.txt')).toBe('f2')
  })
})

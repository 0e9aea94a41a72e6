import { describe, expect, test, vi } from 'vitest'
import { Emitter } from '../../../shared/emitter'
import type { ChannelStatus, FrameChannel } from './channel'
import { RequestClient, type DroppedFrame } from './request-client'

/** An in-memory channel: the test plays the host, seeing each sent frame and answering at will. */
function loopbackChannel() {
  const sent: Array<{ request_id: string; action: string; owner: object; payload: unknown }> = []
  const frames = new Emitter<unknown>()
  const statusChanges = new Emitter<ChannelStatus>()
  let status: ChannelStatus = 'open'
  const channel: FrameChannel = {
    get status() {
      return status
    },
    send(frame) {
      if (status !== 'open') return false
      sent.push(frame as (typeof sent)[number])
      return true
    },
    onFrame: frames.on,
    onStatus: statusChanges.on,
    close() {
      status = 'closed'
    },
  }
  return {
    channel,
    sent,
    deliver: (frame: unknown) => frames.fire(frame),
    drop: () => {
      status = 'closed'
      statusChanges.fire('closed')
    },
  }
}

const okList = (requestId: string, owner: object = { project_id: 'p1' }, path = '') => ({
  request_id: requestId,
  action: 'files.list',
  owner,
  status: 'ok',
  result: { path, entries: [], next_cursor: null, total: 0, page_size: 100 },
})

function setup() {
  const loop = loopbackChannel()
  const dropped: DroppedFrame[] = []
  const client = new RequestClient(loop.channel, (d) => dropped.push(d))
  return { ...loop, client, dropped }
}

describe('request client', () => {
  test('every request carries a fresh UUID request_id and resolves with its own response', async () => {
    const { client, sent, deliver } = setup()
    const a = client.request('files.list', { path: '' }, { owner: { project_id: 'p1' } })
    const b = client.request('files.list', { path: '' }, { owner: { project_id: 'p1' } })
    const [first, second] = sent
    expect(first?.request_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(first?.request_id).not.toBe(second?.request_id)
    // Answers arrive out of order; each lands on its own request.
    deliver({ ...okList(second?.request_id ?? ''), result: { ...okList('').result, total: 2 } })
    deliver({ ...okList(first?.request_id ?? ''), result: { ...okList('').result, total: 1 } })
    expect(await a).toMatchObject({ kind: 'ok', result: { total: 1 } })
    expect(await b).toMatchObject({ kind: 'ok', result: { total: 2 } })
  })

  test('unknown, mismatched and malformed frames are dropped, never applied', async () => {
    const { client, sent, deliver, dropped } = setup()
    const pending = client.request('files.list', { path: 'src' }, { owner: { project_id: 'p1' } })
    const id = sent[0]?.request_id ?? ''
    deliver(okList(crypto.randomUUID(), { project_id: 'p1' }, 'src'))
    deliver({ ...okList(id, { project_id: 'p1' }, 'src'), action: 'files.read' })
    deliver(okList(id, { project_id: 'p2' }, 'src'))
    deliver(okList(id, { project_id: 'p1' }, 'docs'))
    deliver({ ...okList(id, { project_id: 'p1' }, 'src'), result: { entries: 'nope' } })
    deliver({ nonsense: true })
    expect(dropped.map((d) => d.reason)).toEqual([
      'unknown-id',
      'action-mismatch',
      'owner-mismatch',
      'path-mismatch',
      'bad-result',
      'malformed',
    ])
    expect(client.pendingCount).toBe(1)
    deliver(okList(id, { project_id: 'p1' }, 'src'))
    expect(await pending).toMatchObject({ kind: 'ok', result: { path: 'src' } })
  })

  test('a conversion answers with the new file it wrote, which is not the request path', async () => {
    const { client, sent, deliver, dropped } = setup()
    const pending = client.request(
      'office.convert',
      { path: 'old.doc', to: 'docx' },
      { owner: { project_id: 'p1' }, idempotencyKey: 'k' },
    )
    const id = sent[0]?.request_id ?? ''
    const result = {
      path: 'old.docx',
      from_revision: `sha256:${'a'.repeat(64)}`,
      transaction_id: 't',
      revision: `sha256:${'b'.repeat(64)}`,
    }
    deliver({ request_id: id, action: 'office.convert', owner: { project_id: 'p1' }, status: 'ok', result })
    expect(dropped).toEqual([])
    expect(await pending).toMatchObject({ kind: 'ok', result: { path: 'old.docx' } })
  })

  test('a timed-out request reports timeout and its late answer is dropped', async () => {
    vi.useFakeTimers()
    try {
      const { client, sent, deliver, dropped } = setup()
      const pending = client.request('files.list', { path: '' }, { owner: { project_id: 'p1' }, timeoutMs: 1000 })
      vi.advanceTimersByTime(1001)
      expect(await pending).toEqual({ kind: 'timeout' })
      deliver(okList(sent[0]?.request_id ?? ''))
      expect(dropped).toEqual([{ reason: 'unknown-id', requestId: sent[0]?.request_id }])
    } finally {
      vi.useRealTimers()
    }
  })

  test('cancelling forgets the request; the answer that comes later is dropped', async () => {
    const { client, sent, deliver, dropped } = setup()
    const controller = new AbortController()
    const pending = client.request(
      'files.list',
      { path: '' },
      { owner: { project_id: 'p1' }, signal: controller.signal },
    )
    controller.abort()
    expect(await pending).toEqual({ kind: 'cancelled' })
    deliver(okList(sent[0]?.request_id ?? ''))
    expect(dropped.map((d) => d.reason)).toEqual(['unknown-id'])
    expect(await client.request('project.list', {}, { signal: controller.signal })).toEqual({ kind: 'cancelled' })
  })

  test('a lost connection fails what was in flight as disconnected, and nothing is sent while closed', async () => {
    const { client, drop, sent } = setup()
    const pending = client.request('project.list', {})
    drop()
    expect(await pending).toEqual({ kind: 'disconnected' })
    expect(await client.request('project.list', {})).toEqual({ kind: 'disconnected' })
    expect(sent).toHaveLength(1)
  })

  test('server errors come back as values with their stable code', async () => {
    const { client, sent, deliver } = setup()
    const pending = client.request('files.read', { path: 'x' }, { owner: { project_id: 'p1' } })
    deliver({
      request_id: sent[0]?.request_id,
      action: 'files.read',
      owner: { project_id: 'p1' },
      status: 'error',
      error: { code: 'PERMISSION_DENIED', message: 'no' },
    })
    expect(await pending).toEqual({ kind: 'error', error: { code: 'PERMISSION_DENIED', message: 'no' } })
  })

  test('events reach subscribers until they unsubscribe', () => {
    const { client, deliver } = setup()
    const seen: string[] = []
    const off = client.onEvent((frame) => seen.push(frame.event))
    deliver({ event: 'project.opened', owner: {}, data: { project_id: 'p', root: '/r' } })
    off()
    deliver({ event: 'project.opened', owner: {}, data: { project_id: 'p', root: '/r' } })
    expect(seen).toEqual(['project.opened'])
  })
  test("on(name) hands the listener that event's data, typed and checked against the protocol", () => {
    const { client, deliver } = setup()
    const seen: Array<{ paths: readonly string[]; truncated: boolean }> = []
    client.on('files.changed', (data) => seen.push({ paths: data.paths, truncated: data.truncated }))
    deliver({ event: 'project.opened', owner: {}, data: { project_id: 'p', root: '/r' } })
    deliver({ event: 'files.changed', owner: { project_id: 'p1' }, data: { paths: ['a.md'], truncated: false } })
    expect(seen).toEqual([{ paths: ['a.md'], truncated: false }])
  })

  test('an event whose data its schema refuses, or whose name is undeclared, is dropped and reported', () => {
    const { client, deliver, dropped } = setup()
    const seen: string[] = []
    client.onEvent((frame) => seen.push(frame.event))
    client.on('files.changed', () => seen.push('typed'))
    deliver({ event: 'files.changed', owner: { project_id: 'p1' }, data: { paths: 'a.md', truncated: false } })
    deliver({ event: 'files.vanished', owner: { project_id: 'p1' }, data: {} })
    expect(seen).toEqual([])
    expect(dropped).toEqual([
      { reason: 'bad-event', requestId: null },
      { reason: 'bad-event', requestId: null },
    ])
  })

  test("a project-scoped listener hears only its project's events (and those that name none)", () => {
    const { client, deliver } = setup()
    const seen: string[] = []
    const off = client.on('session.updated', (data) => seen.push(data.session_id), { projectId: 'p1' })
    deliver({ event: 'session.updated', owner: { project_id: 'p2' }, data: { session_id: 'other' } })
    deliver({ event: 'session.updated', owner: { project_id: 'p1' }, data: { session_id: 'mine' } })
    deliver({ event: 'session.updated', owner: {}, data: { session_id: 'unowned' } })
    off.dispose()
    deliver({ event: 'session.updated', owner: { project_id: 'p1' }, data: { session_id: 'after' } })
    expect(seen).toEqual(['mine', 'unowned'])
  })
})

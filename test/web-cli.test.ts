import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { startWebHost } from '../e2e/support/web-host'
import { httpGet } from './support/http'
import { FrameClient } from './support/ws-client'
import { request } from './support/core'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
function work(): string {
  const dir = mkdtempSync(join(tmpdir(), 'retrace-cli-'))
  dirs.push(dir)
  return dir
}

describe('npm run web -- <folder>', () => {
  test.each(['SIGINT', 'SIGTERM'] as const)(
    'opens the folder as a project, serves it, and stops cleanly on %s',
    async (signal) => {
      const dir = work()
      writeFileSync(join(dir, 'readme.md'), '# hi\n')
      const host = await startWebHost(dir, join(dir, '.data'), ['--port', '0'])
      const page = await httpGet(host.port, `/?token=${host.token}`)
      expect(page.status).toBe(200)
      expect(page.body).toContain('<div id="root">')
      const client = await FrameClient.connect(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`)
      client.send(request('project.list', {}))
      expect(await client.next()).toMatchObject({
        status: 'ok',
        result: { projects: [{ name: dir.split('/').pop() }] },
      })
      expect(await host.stop(signal)).toBe(0)
      await client.closed
    },
  )

  test('a missing folder is reported and the host does not start', async () => {
    const dir = work()
    await expect(startWebHost(join(dir, 'nope'), join(dir, '.data'))).rejects.toThrow(
      /Cannot open .*There is no folder/s,
    )
  })

  test('the data directory is private to the user', async () => {
    const dir = work()
    const dataDir = join(dir, 'data')
    const host = await startWebHost(dir, dataDir)
    await host.stop()
    const { statSync } = await import('node:fs')
    expect(statSync(dataDir).mode & 0o777).toBe(0o700)
    expect(statSync(join(dataDir, 'retrace.db')).mode & 0o777).toBe(0o600)
  })
})

describe('agent flags of browser mode', () => {
  test('--provider/--base-url/--model become the active provider with the key from RETRACE_API_KEY', async () => {
    const dir = work()
    const host = await startWebHost(
      dir,
      join(dir, '.data'),
      [
        '--provider',
        'anthropic',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--model',
        'claude-test',
        '--permission-mode',
        'auto',
      ],
      { RETRACE_API_KEY: 'from-env' },
    )
    const client = await FrameClient.connect(`ws://127.0.0.1:${host.port}/api/ws?token=${host.token}`)
    client.send(request('settings.providers', {}))
    expect(await client.next()).toMatchObject({
      status: 'ok',
      result: {
        active_provider_id: 'cli',
        providers: [
          {
            kind: 'anthropic',
            base_url: 'http://127.0.0.1:9/v1',
            model: 'claude-test',
            key: { kind: 'env', name: 'RETRACE_API_KEY' },
            key_available: true,
            origin: 'cli',
          },
        ],
      },
    })
    client.send(request('project.list', {}))
    const projects = (await client.next()) as { result: { projects: Array<{ project_id: string }> } }
    client.send(request('session.create', {}, { project_id: projects.result.projects[0]?.project_id ?? '' }))
    // The response and the session.updated event may arrive in either order.
    const frames = [await client.next(), await client.next()]
    expect(frames).toContainEqual(
      expect.objectContaining({ status: 'ok', result: expect.objectContaining({ permission_mode: 'auto' }) }),
    )
    expect(await host.stop()).toBe(0)
  })

  test('a bad agent flag is a usage error and nothing starts', async () => {
    const dir = work()
    await expect(startWebHost(dir, join(dir, '.data'), ['--provider', 'gemini', '--model', 'x'])).rejects.toThrow(
      /--provider must be openai-compatible or anthropic/,
    )
    await expect(startWebHost(dir, join(dir, '.data'), ['--permission-mode', 'yolo'])).rejects.toThrow(
      /--permission-mode must be ask, accept-edits or auto/,
    )
  })
})

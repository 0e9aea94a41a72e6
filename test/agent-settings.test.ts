import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, test } from 'vitest'
import type { Core } from '../src/main/core'
import { request, startCore, testHost } from './support/core'
import { startFakeAnthropic, startFakeOpenAI, type FakeLlmServer } from './support/fake-llm'

const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})
async function track(server: Promise<FakeLlmServer>) {
  const started = await server
  closers.push(() => started.close())
  return started
}
const call = async (core: Core, action: string, payload: Record<string, unknown> = {}) =>
  core.handle(request(action, payload))
const okResult = async <T>(core: Core, action: string, payload: Record<string, unknown> = {}) => {
  const response = await call(core, action, payload)
  if (response.status !== 'ok') throw new Error(`${action}: ${JSON.stringify(response.error)}`)
  return response.result as T
}

type Providers = {
  providers: Array<{ provider_id: string; name: string; key_available: boolean; origin: string }>
  active_provider_id: string | null
  suggestions: Array<{ suggestion_id: string; base_url: string; models: string[]; key: unknown }>
  can_store_keys: boolean
}

describe('provider settings', () => {
  test('add, test, activate and remove providers; keys come from the environment in browser mode', async () => {
    const openai = await track(startFakeOpenAI([], { requireKey: 'sk-good', models: ['gpt-x', 'gpt-y'] }))
    const core = startCore({ agent: { env: { MY_KEY: 'sk-good', WRONG_KEY: 'sk-bad' } } })
    expect(await okResult<Providers>(core, 'settings.providers')).toMatchObject({
      providers: [],
      active_provider_id: null,
      can_store_keys: false,
    })
    const saved = await okResult<{ provider_id: string; key_available: boolean }>(core, 'settings.save_provider', {
      kind: 'openai-compatible',
      name: 'Fake OpenAI',
      base_url: openai.url,
      model: 'gpt-y',
      key: { kind: 'env', name: 'MY_KEY' },
    })
    expect(saved.key_available).toBe(true)
    expect(await okResult(core, 'settings.test_provider', { provider_id: saved.provider_id })).toEqual({
      status: 'ok',
      models: ['gpt-x', 'gpt-y'],
      model_listed: true,
    })
    const listing = await okResult<Providers>(core, 'settings.providers')
    expect(listing.active_provider_id).toBe(saved.provider_id)
    expect(JSON.stringify(listing)).not.toContain('sk-good')

    const wrong = await okResult<{ provider_id: string }>(core, 'settings.save_provider', {
      kind: 'openai-compatible',
      name: 'Wrong key',
      base_url: openai.url,
      model: 'gpt-x',
      key: { kind: 'env', name: 'WRONG_KEY' },
      activate: true,
    })
    expect(await okResult(core, 'settings.test_provider', { provider_id: wrong.provider_id })).toMatchObject({
      status: 'failed',
      reason: 'unauthorized',
      http_status: 401,
    })
    expect((await okResult<Providers>(core, 'settings.providers')).active_provider_id).toBe(wrong.provider_id)

    const missing = await okResult<{ provider_id: string; key_available: boolean }>(core, 'settings.save_provider', {
      kind: 'anthropic',
      name: 'No env',
      base_url: '',
      model: 'claude',
      key: { kind: 'env', name: 'NOT_SET' },
    })
    expect(missing.key_available).toBe(false)
    expect(await okResult(core, 'settings.test_provider', { provider_id: missing.provider_id })).toMatchObject({
      status: 'failed',
      reason: 'no-key',
    })

    const stored = await call(core, 'settings.save_provider', {
      kind: 'anthropic',
      name: 'Stored',
      base_url: '',
      model: 'claude',
      key: { kind: 'stored' },
      api_key: 'sk-secret',
    })
    expect(stored.status === 'error' && stored.error).toMatchObject({
      code: 'UNSUPPORTED',
      details: { reason: 'no-secret-store' },
    })
    const badUrl = await call(core, 'settings.save_provider', {
      kind: 'openai-compatible',
      name: 'Bad',
      base_url: 'file:///etc/passwd',
      model: 'm',
      key: { kind: 'none' },
    })
    expect(badUrl.status === 'error' && badUrl.error.code).toBe('INVALID_REQUEST')

    await okResult(core, 'settings.activate_provider', { provider_id: saved.provider_id })
    expect((await okResult<Providers>(core, 'settings.providers')).active_provider_id).toBe(saved.provider_id)
    await okResult(core, 'settings.remove_provider', { provider_id: wrong.provider_id })
    const removedAgain = await call(core, 'settings.remove_provider', { provider_id: wrong.provider_id })
    expect(removedAgain.status === 'error' && removedAgain.error.code).toBe('NOT_FOUND')
    expect((await okResult<Providers>(core, 'settings.providers')).providers.map((p) => p.name)).toEqual([
      'Fake OpenAI',
      'No env',
    ])
  })

  test('a stored key is encrypted by the shell, never kept in clear, and survives a restart', async () => {
    const anthropic = await track(startFakeAnthropic([], { requireKey: 'sk-ant-secret', models: ['claude-z'] }))
    const secrets = {
      encrypt: (plain: string) => Buffer.from([...Buffer.from(plain)].map((b) => b ^ 0x5a)),
      decrypt: (cipher: Buffer) => Buffer.from([...cipher].map((b) => b ^ 0x5a)).toString(),
    }
    const { tempDir } = await import('./support/temp')
    const dataDir = tempDir('retrace-settings-')
    const first = startCore({ dataDir, host: testHost({ shell: 'desktop', secrets }) })
    const saved = await okResult<{ provider_id: string }>(first, 'settings.save_provider', {
      kind: 'anthropic',
      name: 'Anthropic',
      base_url: anthropic.url,
      model: 'claude-z',
      key: { kind: 'stored' },
      api_key: 'sk-ant-secret',
    })
    first.dispose()
    const { readFileSync, readdirSync } = await import('node:fs')
    const files = readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    expect(files.some((e) => e.name.endsWith('.db'))).toBe(true)
    for (const entry of files) {
      expect(readFileSync(`${entry.parentPath}/${entry.name}`).includes('sk-ant-secret')).toBe(false)
    }
    const second = startCore({ dataDir, host: testHost({ shell: 'desktop', secrets }) })
    expect((await okResult<Providers>(second, 'settings.providers')).can_store_keys).toBe(true)
    expect(await okResult(second, 'settings.test_provider', { provider_id: saved.provider_id })).toEqual({
      status: 'ok',
      models: ['claude-z'],
      model_listed: true,
    })
    const withoutKey = await call(second, 'settings.save_provider', {
      kind: 'anthropic',
      name: 'New',
      base_url: '',
      model: 'm',
      key: { kind: 'stored' },
    })
    expect(withoutKey.status === 'error' && withoutKey.error.code).toBe('INVALID_REQUEST')
  })

  test('first run offers environment keys and a local Ollama; an unreachable server is reported as such', async () => {
    const ollama = createServer((req, res) => {
      res.setHeader('content-type', 'application/json')
      res.end(req.url === '/api/tags' ? JSON.stringify({ models: [{ name: 'qwen3:8b' }, { name: 'llama3.2' }] }) : '{}')
    })
    await new Promise<void>((resolve) => ollama.listen(0, '127.0.0.1', resolve))
    closers.push(() => new Promise((resolve) => ollama.close(() => resolve())))
    const ollamaUrl = `http://127.0.0.1:${(ollama.address() as AddressInfo).port}`
    const core = startCore({ agent: { env: { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' }, ollamaUrl } })
    const listing = await okResult<Providers>(core, 'settings.providers')
    expect(listing.suggestions.map((s) => s.suggestion_id)).toEqual(['env-anthropic', 'env-openai', 'local-ollama'])
    expect(listing.suggestions[0]?.key).toEqual({ kind: 'env', name: 'ANTHROPIC_API_KEY' })
    expect(listing.suggestions[2]).toMatchObject({ base_url: `${ollamaUrl}/v1`, models: ['qwen3:8b', 'llama3.2'] })

    const unreachable = await okResult<{ provider_id: string }>(core, 'settings.save_provider', {
      kind: 'openai-compatible',
      name: 'Gone',
      base_url: 'http://127.0.0.1:9/v1',
      model: 'm',
      key: { kind: 'none' },
    })
    expect(await okResult(core, 'settings.test_provider', { provider_id: unreachable.provider_id })).toMatchObject({
      status: 'failed',
      reason: 'unreachable',
    })
  })

  test('the command-line provider is active and read-only', async () => {
    const openai = await track(startFakeOpenAI([], { models: ['cli-model'] }))
    const core = startCore({
      agent: { cliProvider: { kind: 'openai-compatible', base_url: openai.url, model: 'cli-model' }, env: {} },
    })
    const listing = await okResult<Providers>(core, 'settings.providers')
    expect(listing.active_provider_id).toBe('cli')
    expect(listing.providers).toMatchObject([{ provider_id: 'cli', origin: 'cli', key_available: true }])
    const removed = await call(core, 'settings.remove_provider', { provider_id: 'cli' })
    expect(removed.status === 'error' && removed.error.code).toBe('UNSUPPORTED')
  })
})

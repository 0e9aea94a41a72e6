import { describe, expect, test } from 'vitest'
import type { ProviderView } from '../../../../shared/protocol'
import { draftFrom, savePayload } from './provider-draft'

const stored: ProviderView = {
  provider_id: 'prov_1',
  kind: 'anthropic',
  name: 'Work',
  base_url: '',
  model: 'claude',
  key: { kind: 'stored' },
  key_available: true,
  origin: 'user',
}

describe('provider form', () => {
  test('a local server needs no key and keeps its base URL', () => {
    const draft = { ...draftFrom(null, true), baseUrl: ' http://127.0.0.1:11434/v1 ', model: 'qwen3:8b' }
    expect(savePayload(draft, null)).toEqual({
      ok: true,
      payload: {
        kind: 'openai-compatible',
        name: 'OpenAI-compatible',
        base_url: 'http://127.0.0.1:11434/v1',
        model: 'qwen3:8b',
        key: { kind: 'none' },
        activate: true,
      },
    })
  })

  test('an environment variable must be a valid name; the key itself never is sent', () => {
    const draft = { ...draftFrom(null, false), model: 'gpt', keyChoice: 'env' as const, envName: '1BAD' }
    expect(savePayload(draft, null)).toEqual({ ok: false, problem: 'settings.badEnvName' })
    const good = savePayload({ ...draft, envName: 'OPENAI_API_KEY', apiKey: 'secret' }, null)
    expect(good).toMatchObject({ ok: true, payload: { key: { kind: 'env', name: 'OPENAI_API_KEY' } } })
    expect(JSON.stringify(good)).not.toContain('secret')
  })

  test('editing a stored key without retyping it keeps the stored one', () => {
    const draft = draftFrom(stored, false)
    const payload = savePayload(draft, stored)
    expect(payload).toMatchObject({ ok: true, payload: { provider_id: 'prov_1', key: { kind: 'stored' } } })
    expect(payload.ok && 'api_key' in payload.payload).toBe(false)
    expect(savePayload({ ...draftFrom(null, false), model: 'm', keyChoice: 'stored' }, null)).toEqual({
      ok: false,
      problem: 'settings.needKey',
    })
  })

  test('a model is required and a base URL must be http(s)', () => {
    expect(savePayload(draftFrom(null, false), null)).toEqual({ ok: false, problem: 'settings.needModel' })
    expect(savePayload({ ...draftFrom(null, false), model: 'm', baseUrl: 'ftp://x' }, null)).toEqual({
      ok: false,
      problem: 'settings.badUrl',
    })
  })
})

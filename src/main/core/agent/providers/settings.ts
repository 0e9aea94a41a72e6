import { randomUUID } from 'node:crypto'
import { fail, ok, type Outcome, type PayloadOf, type ProviderView, type ResultOf } from '../../../../shared/protocol'
import { readSetting, statement, writeSetting, type Database } from '../../store'
import { DEFAULT_BASE_URLS, type KeySource, type ProviderConfig, type SecretStore } from './types'

type Suggestion = ResultOf<'settings.providers'>['suggestions'][number]

export interface ProviderSettingsOptions {
  readonly db: Database
  readonly secrets: SecretStore | undefined
  /** The environment keys are read from (process.env in the shells; scripted in tests). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Browser mode's `--provider/--base-url/--model` (key from RETRACE_API_KEY): active, never persisted. */
  readonly cli?: { kind: ProviderConfig['kind']; base_url: string; model: string }
  /** Where to look for a local Ollama on first run; null disables the probe. */
  readonly ollamaUrl: string | null
}

export interface ProviderSettings {
  list(): Promise<ResultOf<'settings.providers'>>
  save(input: PayloadOf<'settings.save_provider'>): Outcome<ProviderView>
  remove(providerId: string): Outcome<Record<string, never>>
  activate(providerId: string): Outcome<{ active_provider_id: string }>
  get(providerId: string): ProviderConfig | undefined
  /** The provider new turns use, with its key resolved; null when none is configured. */
  active(): { config: ProviderConfig; apiKey: string | undefined } | null
  resolveKey(config: ProviderConfig): string | undefined
  /** The variables configured providers read keys from, and their values (kept from commands). */
  keyVariables(): { names: string[]; values: string[] }
}

interface ProviderRow {
  provider_id: string
  kind: ProviderConfig['kind']
  name: string
  base_url: string
  model: string
  key_source: string
  key_ciphertext: Uint8Array | null
}

const CLI_PROVIDER_ID = 'cli'
const ACTIVE_KEY = 'active_provider_id'

export function createProviderSettings(options: ProviderSettingsOptions): ProviderSettings {
  const { db, secrets, env } = options
  const cliConfig: ProviderConfig | undefined = options.cli && {
    provider_id: CLI_PROVIDER_ID,
    kind: options.cli.kind,
    name: 'Command line',
    base_url: options.cli.base_url,
    model: options.cli.model,
    key: env.RETRACE_API_KEY ? { kind: 'env', name: 'RETRACE_API_KEY' } : { kind: 'none' },
    origin: 'cli',
  }
  // The command line wins for this run only; choosing another provider in Settings persists.
  let activeOverride: string | null = cliConfig ? CLI_PROVIDER_ID : null

  const rows = () =>
    statement(db, 'SELECT * FROM providers ORDER BY created_at_ms, provider_id').all() as unknown as ProviderRow[]
  const toConfig = (row: ProviderRow): ProviderConfig => ({
    provider_id: row.provider_id,
    kind: row.kind,
    name: row.name,
    base_url: row.base_url,
    model: row.model,
    key: JSON.parse(row.key_source) as KeySource,
    origin: 'user',
  })
  const all = (): ProviderConfig[] => [...(cliConfig ? [cliConfig] : []), ...rows().map(toConfig)]
  const get = (providerId: string) => all().find((p) => p.provider_id === providerId)

  function resolveKey(config: ProviderConfig): string | undefined {
    switch (config.key.kind) {
      case 'none':
        return undefined
      case 'env': {
        const value = env[config.key.name]
        return value === undefined || value === '' ? undefined : value
      }
      case 'stored': {
        const row = statement(db, 'SELECT key_ciphertext FROM providers WHERE provider_id = ?').get(
          config.provider_id,
        ) as { key_ciphertext: Uint8Array | null } | undefined
        if (!row?.key_ciphertext || !secrets) return undefined
        return secrets.decrypt(Buffer.from(row.key_ciphertext)) ?? undefined
      }
    }
  }

  const view = (config: ProviderConfig): ProviderView => ({
    ...config,
    key_available: config.key.kind === 'none' || resolveKey(config) !== undefined,
  })

  function activeId(): string | null {
    if (activeOverride !== null && get(activeOverride)) return activeOverride
    const stored = readSetting(db, ACTIVE_KEY)
    if (stored !== undefined && get(stored)) return stored
    return all()[0]?.provider_id ?? null
  }

  let ollamaCache: { at: number; models: string[] | null } | undefined
  async function probeOllama(): Promise<string[] | null> {
    if (options.ollamaUrl === null) return null
    if (ollamaCache && Date.now() - ollamaCache.at < 30_000) return ollamaCache.models
    let models: string[] | null = null
    try {
      const response = await fetch(`${options.ollamaUrl.replace(/\/+$/, '')}/api/tags`, {
        signal: AbortSignal.timeout(500),
      })
      if (response.ok) {
        const body = (await response.json()) as { models?: Array<{ name?: unknown }> }
        models = (body.models ?? []).map((m) => m.name).filter((n): n is string => typeof n === 'string')
      }
    } catch {
      models = null
    }
    ollamaCache = { at: Date.now(), models }
    return models
  }

  async function suggestions(): Promise<Suggestion[]> {
    const configured = all()
    const known = (kind: string, base: string) =>
      configured.some((p) => p.kind === kind && (p.base_url || DEFAULT_BASE_URLS[p.kind]) === base)
    const found: Suggestion[] = []
    if (env.ANTHROPIC_API_KEY && !known('anthropic', DEFAULT_BASE_URLS.anthropic)) {
      found.push({
        suggestion_id: 'env-anthropic',
        kind: 'anthropic',
        name: 'Anthropic',
        base_url: DEFAULT_BASE_URLS.anthropic,
        model: 'claude-sonnet-4-5',
        key: { kind: 'env', name: 'ANTHROPIC_API_KEY' },
        models: [],
        reason: 'ANTHROPIC_API_KEY is set in the environment.',
      })
    }
    if (env.OPENAI_API_KEY && !known('openai-compatible', DEFAULT_BASE_URLS['openai-compatible'])) {
      found.push({
        suggestion_id: 'env-openai',
        kind: 'openai-compatible',
        name: 'OpenAI',
        base_url: DEFAULT_BASE_URLS['openai-compatible'],
        model: 'gpt-4.1',
        key: { kind: 'env', name: 'OPENAI_API_KEY' },
        models: [],
        reason: 'OPENAI_API_KEY is set in the environment.',
      })
    }
    const ollama = await probeOllama()
    const ollamaBase = `${(options.ollamaUrl ?? '').replace(/\/+$/, '')}/v1`
    if (ollama !== null && !known('openai-compatible', ollamaBase)) {
      found.push({
        suggestion_id: 'local-ollama',
        kind: 'openai-compatible',
        name: 'Ollama (local)',
        base_url: ollamaBase,
        model: ollama[0] ?? 'llama3.1',
        key: { kind: 'none' },
        models: ollama,
        reason: `Ollama answers at ${options.ollamaUrl}.`,
      })
    }
    return found
  }

  function keyVariables(): { names: string[]; values: string[] } {
    const names = all().flatMap((config) => (config.key.kind === 'env' ? [config.key.name] : []))
    // The command line's key is read whether or not a provider flag was given with it.
    names.push('RETRACE_API_KEY')
    const values = names.map((name) => env[name]).filter((value): value is string => value !== undefined)
    return { names, values }
  }

  return {
    get,
    resolveKey,
    keyVariables,
    async list() {
      return {
        providers: all().map(view),
        active_provider_id: activeId(),
        suggestions: await suggestions(),
        can_store_keys: secrets !== undefined,
      }
    },
    save(input) {
      if (input.provider_id === CLI_PROVIDER_ID) {
        return fail('UNSUPPORTED', 'The command-line provider is set by the flags Retrace was started with.', {
          reason: 'command-line-provider',
        })
      }
      const baseUrl = input.base_url.trim()
      if (baseUrl !== '') {
        let url: URL
        try {
          url = new URL(baseUrl)
        } catch {
          return fail('INVALID_REQUEST', `"${baseUrl}" is not a URL.`, { reason: 'bad-base-url' })
        }
        if (url.protocol !== 'http:' && url.protocol !== 'https:') {
          return fail('INVALID_REQUEST', 'The base URL must start with http:// or https://.', {
            reason: 'bad-base-url',
          })
        }
      }
      const existing = input.provider_id === undefined ? undefined : get(input.provider_id)
      if (input.provider_id !== undefined && !existing) {
        return fail('NOT_FOUND', `There is no provider "${input.provider_id}".`, {
          provider_id: input.provider_id,
          reason: 'no-provider',
        })
      }
      let ciphertext: Buffer | null | 'keep' = null
      if (input.key.kind === 'stored') {
        if (!secrets) {
          return fail(
            'UNSUPPORTED',
            'Browser mode never stores keys; name an environment variable that holds the key instead.',
            { reason: 'no-secret-store' },
          )
        }
        if (input.api_key !== undefined) ciphertext = secrets.encrypt(input.api_key)
        else if (existing?.key.kind === 'stored') ciphertext = 'keep'
        else return fail('INVALID_REQUEST', 'Enter the API key to store.', { reason: 'missing-key' })
      } else if (input.api_key !== undefined) {
        return fail('INVALID_REQUEST', 'api_key is only accepted with a stored key.', { reason: 'unexpected-key' })
      }
      const providerId = existing?.provider_id ?? `prov_${randomUUID()}`
      const keySource = JSON.stringify(input.key)
      if (existing) {
        statement(
          db,
          'UPDATE providers SET kind = ?, name = ?, base_url = ?, model = ?, key_source = ? WHERE provider_id = ?',
        ).run(input.kind, input.name, baseUrl, input.model, keySource, providerId)
        if (ciphertext !== 'keep') {
          statement(db, 'UPDATE providers SET key_ciphertext = ? WHERE provider_id = ?').run(ciphertext, providerId)
        }
      } else {
        statement(db, 'INSERT INTO providers VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
          providerId,
          input.kind,
          input.name,
          baseUrl,
          input.model,
          keySource,
          ciphertext === 'keep' ? null : ciphertext,
          Date.now(),
        )
      }
      if (input.activate || activeId() === providerId) {
        activeOverride = null
        writeSetting(db, ACTIVE_KEY, providerId)
      }
      return ok(view(get(providerId) as ProviderConfig))
    },
    remove(providerId) {
      if (providerId === CLI_PROVIDER_ID) {
        return fail('UNSUPPORTED', 'The command-line provider is set by the flags Retrace was started with.', {
          reason: 'command-line-provider',
        })
      }
      const removed = statement(db, 'DELETE FROM providers WHERE provider_id = ?').run(providerId)
      if (Number(removed.changes) === 0) {
        return fail('NOT_FOUND', `There is no provider "${providerId}".`, {
          provider_id: providerId,
          reason: 'no-provider',
        })
      }
      return ok({})
    },
    activate(providerId) {
      if (!get(providerId))
        return fail('NOT_FOUND', `There is no provider "${providerId}".`, {
          provider_id: providerId,
          reason: 'no-provider',
        })
      activeOverride = providerId === CLI_PROVIDER_ID ? CLI_PROVIDER_ID : null
      if (providerId !== CLI_PROVIDER_ID) {
        writeSetting(db, ACTIVE_KEY, providerId)
      }
      return ok({ active_provider_id: providerId })
    },
    active() {
      const id = activeId()
      const config = id === null ? undefined : get(id)
      return config ? { config, apiKey: resolveKey(config) } : null
    },
  }
}

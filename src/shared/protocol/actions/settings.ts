import { z } from 'zod'
import { defineAction } from '../define-action'

export const ProviderKind = z.enum(['openai-compatible', 'anthropic'])
export type ProviderKind = z.infer<typeof ProviderKind>

/**
 * Where a provider's key comes from. Keys never travel back to the renderer: a view only learns
 * whether one is set. `stored` is encrypted by the desktop shell (Electron safeStorage); browser
 * mode names an environment variable instead, so nothing secret is written to disk in clear.
 */
export const ProviderKeySource = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }),
  z.object({
    kind: z.literal('env'),
    name: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .max(100),
  }),
  z.object({ kind: z.literal('stored') }),
])

export const ProviderSchema = z.object({
  provider_id: z.string(),
  kind: ProviderKind,
  name: z.string(),
  base_url: z.string(),
  model: z.string(),
  key: ProviderKeySource,
  /** Whether a key is actually available right now (the env var is set, the stored key decrypts). */
  key_available: z.boolean(),
  /** `cli`: given on the browser-mode command line; not editable, not persisted. */
  origin: z.enum(['user', 'cli']),
})
export type ProviderView = z.infer<typeof ProviderSchema>

export const ProviderSuggestion = z.object({
  suggestion_id: z.string(),
  kind: ProviderKind,
  name: z.string(),
  base_url: z.string(),
  model: z.string(),
  key: ProviderKeySource,
  models: z.array(z.string()),
  reason: z.string(),
})

export const settingsProviders = defineAction('settings.providers', {
  scope: 'app',
  mutating: false,
  payload: z.object({}).strict(),
  result: z.object({
    providers: z.array(ProviderSchema),
    active_provider_id: z.string().nullable(),
    /** First-run offers: ANTHROPIC_API_KEY / OPENAI_API_KEY set, a local Ollama answering. */
    suggestions: z.array(ProviderSuggestion),
    /** Whether this shell can store a key itself (desktop with safeStorage). */
    can_store_keys: z.boolean(),
  }),
})

export const settingsSaveProvider = defineAction('settings.save_provider', {
  scope: 'app',
  mutating: false,
  payload: z
    .object({
      /** Absent: add a new provider. */
      provider_id: z.string().max(200).optional(),
      kind: ProviderKind,
      name: z.string().min(1).max(200),
      base_url: z.string().max(2_000),
      model: z.string().min(1).max(500),
      key: ProviderKeySource,
      /** With `key.kind === 'stored'`: a new key to encrypt; absent keeps the stored one. */
      api_key: z.string().min(1).max(10_000).optional(),
      activate: z.boolean().optional(),
    })
    .strict(),
  result: ProviderSchema,
})

export const settingsRemoveProvider = defineAction('settings.remove_provider', {
  scope: 'app',
  mutating: false,
  payload: z.object({ provider_id: z.string().min(1).max(200) }).strict(),
  result: z.object({}),
})

export const settingsActivateProvider = defineAction('settings.activate_provider', {
  scope: 'app',
  mutating: false,
  payload: z.object({ provider_id: z.string().min(1).max(200) }).strict(),
  result: z.object({ active_provider_id: z.string() }),
})

/** Asks the provider for its models (no tokens spent); the answer says precisely what failed. */
export const settingsTestProvider = defineAction('settings.test_provider', {
  scope: 'app',
  mutating: false,
  payload: z.object({ provider_id: z.string().min(1).max(200) }).strict(),
  result: z.discriminatedUnion('status', [
    z.object({ status: z.literal('ok'), models: z.array(z.string()), model_listed: z.boolean() }),
    z.object({
      status: z.literal('failed'),
      reason: z.enum(['unauthorized', 'not-found', 'unreachable', 'bad-response', 'no-key', 'http-error']),
      message: z.string(),
      http_status: z.number().int().optional(),
    }),
  ]),
})

/**
 * Spec 06 `snapshot: false`: step snapshots of what commands change, on or off for every project
 * (read at each capture). Without `enabled` it only answers the current value.
 */
export const settingsSnapshots = defineAction('settings.snapshots', {
  scope: 'app',
  mutating: false,
  payload: z.object({ enabled: z.boolean().optional() }).strict(),
  result: z.object({
    enabled: z.boolean(),
    /** False when the engine was started with snapshots turned off (then the setting cannot turn them on). */
    available: z.boolean(),
  }),
})

import type { PayloadOf, ProviderKind, ProviderView } from '../../../../shared/protocol'
import type { MessageKey } from '../../i18n'

export type KeyChoice = 'none' | 'env' | 'stored'

/** What the form holds; strings as typed. */
export interface ProviderDraft {
  readonly kind: ProviderKind
  readonly name: string
  readonly baseUrl: string
  readonly model: string
  readonly keyChoice: KeyChoice
  readonly envName: string
  readonly apiKey: string
  readonly activate: boolean
}

export type SavePayload = PayloadOf<'settings.save_provider'>

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

export const DEFAULT_NAMES: Record<ProviderKind, string> = {
  'openai-compatible': 'OpenAI-compatible',
  anthropic: 'Anthropic',
}

export const DEFAULT_BASE_URLS: Record<ProviderKind, string> = {
  'openai-compatible': 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
}

/** Local servers that speak the OpenAI API without a key (spec 05 "Providers"). */
export const LOCAL_PRESETS = [
  { id: 'ollama', name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1', help: 'settings.helpOllama' },
  { id: 'lmstudio', name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1', help: 'settings.helpLmStudio' },
] as const satisfies ReadonlyArray<{ id: string; name: string; baseUrl: string; help: MessageKey }>

export function draftFrom(provider: ProviderView | null, activate: boolean): ProviderDraft {
  return {
    kind: provider?.kind ?? 'openai-compatible',
    name: provider?.name ?? '',
    baseUrl: provider?.base_url ?? '',
    model: provider?.model ?? '',
    keyChoice: provider?.key.kind ?? 'none',
    envName: provider?.key.kind === 'env' ? provider.key.name : '',
    apiKey: '',
    activate,
  }
}

/**
 * The save request for a draft, or the message key of what is missing. A stored key is sent only
 * when one was typed: editing a provider without retyping it keeps the stored one.
 */
export function savePayload(
  draft: ProviderDraft,
  editing: ProviderView | null,
): { ok: true; payload: SavePayload } | { ok: false; problem: MessageKey } {
  const model = draft.model.trim()
  if (model === '') return { ok: false, problem: 'settings.needModel' }
  const baseUrl = draft.baseUrl.trim()
  if (baseUrl !== '' && !/^https?:\/\/\S+$/.test(baseUrl)) return { ok: false, problem: 'settings.badUrl' }
  let key: SavePayload['key']
  if (draft.keyChoice === 'env') {
    const name = draft.envName.trim()
    if (!ENV_NAME.test(name)) return { ok: false, problem: 'settings.badEnvName' }
    key = { kind: 'env', name }
  } else if (draft.keyChoice === 'stored') {
    if (draft.apiKey === '' && editing?.key.kind !== 'stored') return { ok: false, problem: 'settings.needKey' }
    key = { kind: 'stored' }
  } else {
    key = { kind: 'none' }
  }
  return {
    ok: true,
    payload: {
      ...(editing ? { provider_id: editing.provider_id } : {}),
      kind: draft.kind,
      name: draft.name.trim() || DEFAULT_NAMES[draft.kind],
      base_url: baseUrl,
      model,
      key,
      ...(draft.keyChoice === 'stored' && draft.apiKey !== '' ? { api_key: draft.apiKey } : {}),
      ...(draft.activate ? { activate: true } : {}),
    },
  }
}

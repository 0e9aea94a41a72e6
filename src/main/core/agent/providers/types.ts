import type { ProviderKind } from '../../../../shared/protocol'

export type KeySource = { kind: 'none' } | { kind: 'env'; name: string } | { kind: 'stored' }

/** A configured model provider. The key itself is resolved only when a model call is made. */
export interface ProviderConfig {
  readonly provider_id: string
  readonly kind: ProviderKind
  readonly name: string
  readonly base_url: string
  readonly model: string
  readonly key: KeySource
  readonly origin: 'user' | 'cli'
}

/** The desktop shell's secret store (Electron safeStorage); absent in browser mode. */
export interface SecretStore {
  encrypt(plain: string): Buffer
  /** null when the ciphertext cannot be decrypted on this machine/account any more. */
  decrypt(cipher: Buffer): string | null
}

export const DEFAULT_BASE_URLS: Record<ProviderKind, string> = {
  'openai-compatible': 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
}

export { createProviderSettings, type ProviderSettings, type ProviderSettingsOptions } from './settings'
export { languageModelFor } from './model'
export { testConnection } from './test-connection'
export type { ProviderConfig, SecretStore, KeySource } from './types'

import type { SecretStore } from './agent'

/**
 * What the engine needs from the shell it runs in. Electron-owned things (dialogs, app version,
 * user-data path) reach the core only through this, so the core never imports `electron`.
 */
export interface Host {
  readonly shell: 'desktop' | 'browser'
  readonly appVersion: string
  /** The native folder picker; absent where the shell has none (browser mode). */
  readonly pickFolder?: () => Promise<string | null>
  /** The desktop shell's key encryption (Electron safeStorage); absent in browser mode. */
  readonly secrets?: SecretStore
  readonly log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void
}

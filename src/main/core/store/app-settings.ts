import { statement } from './database'
import type { Database } from './database'

/**
 * Application-wide settings (`app_settings`): small string values by key. The store owns the
 * table; modules own their keys (the active provider, step snapshots on/off).
 */
export function readSetting(db: Database, key: string): string | undefined {
  return (statement(db, 'SELECT value FROM app_settings WHERE key = ?').get(key) as { value: string } | undefined)
    ?.value
}

export function writeSetting(db: Database, key: string, value: string): void {
  statement(db, 'INSERT OR REPLACE INTO app_settings VALUES (?, ?)').run(key, value)
}

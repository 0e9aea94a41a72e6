/** Every temp file the journal creates in a project starts with this. */
export const JOURNAL_TEMP_PREFIX = '.retrace-tmp-'

export const tempPrefix = (transactionId: string) => `${JOURNAL_TEMP_PREFIX}${transactionId}-`

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'
/**
 * Exactly the names {@link tempName} produces. Only these are hidden from listings and refused as
 * targets: a person's own `.retrace-tmp-notes` is an ordinary file.
 */
const TEMP_NAME = new RegExp(`^\\.retrace-tmp-mtx_${UUID}-(?:[0-9a-f]{8}|recover-[0-9a-f]{8})$`)

export function isJournalTempName(name: string): boolean {
  return name.startsWith(JOURNAL_TEMP_PREFIX) && TEMP_NAME.test(name)
}

/** ASCII only and of fixed length, so the path limit check before publishing is exact. */
export function tempName(transactionId: string, unique: string): string {
  return `${tempPrefix(transactionId)}${unique}`
}

/** The longest temp name: prefix + `mtx_` + UUID + `-recover-` + 8 hex digits. */
export const TEMP_NAME_BYTES = JOURNAL_TEMP_PREFIX.length + 4 + 36 + 1 + 'recover-'.length + 8

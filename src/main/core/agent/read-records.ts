import type { Digest } from '../store'

/**
 * What the agent last read of each path in this session (spec 05 `read`: "records the baseline").
 * A write or edit of an existing file is checked against this digest, so the agent never
 * overwrites content it has not seen.
 */
export interface ReadRecords {
  /** The digest the agent last saw for `path`, `null` if it saw the path absent, undefined if never read. */
  get(path: string): Digest | null | undefined
  set(path: string, digest: Digest | null): void
}

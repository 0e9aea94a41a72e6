import { readFile } from 'node:fs/promises'
import { z } from 'zod'

/**
 * The ONLYOFFICE bundle release this build installs (`build/office-bundle.json`, or the file named
 * by `RETRACE_OFFICE_BUNDLE` — for mirrors and tests). Only a complete pin — an https URL (plain
 * http only to a loopback address), an exact size and a SHA-256 — can be installed; a build whose
 * bundle has not been released yet says so (`released: false`) and offers no Install.
 */
export const BundlePin = z
  .object({
    version: z.string().min(1).max(100),
    url: z.url(),
    size: z.number().int().positive(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    licence: z.string().min(1),
    source: z.string().min(1),
  })
  .loose()
export type BundlePin = z.infer<typeof BundlePin>

const Unreleased = z
  .object({
    released: z.literal(false),
    version: z.string().optional(),
    licence: z.string().optional(),
    source: z.string().optional(),
  })
  .loose()

export type PinState =
  | { kind: 'pinned'; pin: BundlePin; file: string }
  | { kind: 'unpinned'; reason: string; version?: string; licence?: string; source?: string }

export async function loadPin(
  defaultFile: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<PinState> {
  const file = env.RETRACE_OFFICE_BUNDLE || defaultFile
  let json: unknown
  try {
    json = JSON.parse(await readFile(file, 'utf8'))
  } catch (error) {
    return { kind: 'unpinned', reason: `The bundle pin ${file} cannot be read (${(error as Error).message}).` }
  }
  const pinned = BundlePin.safeParse(json)
  if (pinned.success) {
    if (!allowedUrl(pinned.data.url)) {
      return { kind: 'unpinned', reason: 'The pinned bundle URL must be https (or http to 127.0.0.1 for tests).' }
    }
    return { kind: 'pinned', pin: pinned.data, file }
  }
  const unreleased = Unreleased.safeParse(json)
  if (unreleased.success) {
    return {
      kind: 'unpinned',
      reason: 'This build does not pin an Office bundle release yet.',
      ...(unreleased.data.version !== undefined ? { version: unreleased.data.version } : {}),
      ...(unreleased.data.licence !== undefined ? { licence: unreleased.data.licence } : {}),
      ...(unreleased.data.source !== undefined ? { source: unreleased.data.source } : {}),
    }
  }
  return { kind: 'unpinned', reason: `The bundle pin ${file} is not valid: ${pinned.error.issues[0]?.message ?? ''}` }
}

export function allowedUrl(url: string): boolean {
  const parsed = new URL(url)
  if (parsed.protocol === 'https:') return true
  return parsed.protocol === 'http:' && (parsed.hostname === '127.0.0.1' || parsed.hostname === '[::1]')
}

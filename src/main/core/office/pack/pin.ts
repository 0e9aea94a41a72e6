import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { allowedUrl } from '../bundle/pin'

/**
 * The LibreOffice WebAssembly pack this build offers (`build/office-pack.json`): the registry's
 * own tarball of one exact version, pinned by size and the registry's SHA-512 integrity.
 * `RETRACE_OFFICE_PACK` names another pin file and `RETRACE_OFFICE_PACK_URL` another address for
 * the same bytes (a mirror, or a loopback server in tests); the digest is what makes either safe.
 */
export const PackPin = z
  .object({
    name: z.string().min(1).max(214),
    version: z.string().regex(/^[\w.+-]{1,64}$/),
    url: z.url(),
    size: z.number().int().positive(),
    unpacked_size: z.number().int().positive().optional(),
    integrity: z.string().regex(/^sha512-[A-Za-z0-9+/]{86}==$/),
    licence: z.string().min(1),
    source: z.string().min(1),
  })
  .loose()
export type PackPin = z.infer<typeof PackPin>

export type PackPinState = { kind: 'pinned'; pin: PackPin } | { kind: 'unpinned'; reason: string }

export async function loadPackPin(
  defaultFile: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<PackPinState> {
  const file = env.RETRACE_OFFICE_PACK || defaultFile
  let json: unknown
  try {
    json = JSON.parse(await readFile(file, 'utf8'))
  } catch (error) {
    return {
      kind: 'unpinned',
      reason: `The LibreOffice pack pin ${file} cannot be read (${(error as Error).message}).`,
    }
  }
  const parsed = PackPin.safeParse(json)
  if (!parsed.success) {
    return {
      kind: 'unpinned',
      reason: `The LibreOffice pack pin ${file} is not valid: ${parsed.error.issues[0]?.message ?? ''}`,
    }
  }
  const url = env.RETRACE_OFFICE_PACK_URL || parsed.data.url
  let allowed: boolean
  try {
    allowed = allowedUrl(url)
  } catch {
    allowed = false
  }
  if (!allowed) {
    return { kind: 'unpinned', reason: 'The LibreOffice pack URL must be https (or http to 127.0.0.1 for tests).' }
  }
  return { kind: 'pinned', pin: { ...parsed.data, url } }
}

/** `sha512-<base64>` as the hex digest the download is compared with. */
export function integrityHex(integrity: string): string {
  return Buffer.from(integrity.slice('sha512-'.length), 'base64').toString('hex')
}

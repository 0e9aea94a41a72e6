import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { lstat, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { InstallError } from './errors'
import { unsafeEntry } from './extract'

export const MANIFEST_NAME = 'retrace-office-manifest.json'

/**
 * The manifest is parsed in one synchronous JSON.parse: bounded so a crafted one cannot hold the
 * event loop. 50 000 entries (the extraction limit) of path, size and SHA-256 fit in about 8 MiB.
 */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024

export const BundleManifest = z
  .object({
    format: z.literal(1),
    engine: z.literal('onlyoffice'),
    version: z.string().min(1),
    /** The editor's entry document, relative to the bundle root. */
    entry: z.string().min(1),
    files: z
      .array(
        z.object({
          path: z.string().min(1),
          size: z.number().int().nonnegative(),
          sha256: z.string().regex(/^[0-9a-f]{64}$/),
        }),
      )
      .min(1),
  })
  .loose()
export type BundleManifest = z.infer<typeof BundleManifest>

/**
 * The extracted tree must be exactly what the manifest lists: every listed file present with its
 * size and SHA-256, nothing unlisted, nothing but folders and regular files, and the entry among
 * the files.
 */
export async function verifyBundle(root: string, expectedVersion: string): Promise<BundleManifest> {
  let manifest: BundleManifest
  const size = (await lstat(join(root, MANIFEST_NAME)).catch(() => undefined))?.size ?? 0
  if (size > MAX_MANIFEST_BYTES) {
    throw new InstallError(
      'manifest-invalid',
      `The bundle's ${MANIFEST_NAME} is larger than ${MAX_MANIFEST_BYTES} bytes.`,
    )
  }
  try {
    const parsed = BundleManifest.safeParse(JSON.parse(await readFile(join(root, MANIFEST_NAME), 'utf8')))
    if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'invalid')
    manifest = parsed.data
  } catch (error) {
    throw new InstallError(
      'manifest-invalid',
      `The bundle has no valid ${MANIFEST_NAME} (${(error as Error).message}).`,
    )
  }
  if (manifest.version !== expectedVersion) {
    throw new InstallError(
      'manifest-mismatch',
      `The bundle is version ${manifest.version}, not the pinned ${expectedVersion}.`,
    )
  }
  const listed = new Map<string, { size: number; sha256: string }>()
  for (const file of manifest.files) {
    const reason = unsafeEntry(file.path, 'File')
    if (reason || file.path === MANIFEST_NAME || listed.has(file.path)) {
      throw new InstallError('manifest-invalid', `The manifest lists an invalid path: ${reason ?? file.path}.`)
    }
    listed.set(file.path, file)
  }
  if (!listed.has(manifest.entry))
    throw new InstallError('manifest-invalid', `The entry ${manifest.entry} is not a listed file.`)

  const found = await walk(root, '')
  for (const path of found) {
    if (path === MANIFEST_NAME) continue
    const expected = listed.get(path)
    if (!expected) throw new InstallError('manifest-mismatch', `"${path}" is in the bundle but not in its manifest.`)
    const info = await lstat(join(root, path))
    if (info.size !== expected.size) {
      throw new InstallError(
        'manifest-mismatch',
        `"${path}" is ${info.size} bytes; the manifest says ${expected.size}.`,
      )
    }
    if ((await digestOf(join(root, path))) !== expected.sha256) {
      throw new InstallError('manifest-mismatch', `"${path}" does not match its SHA-256 in the manifest.`)
    }
    listed.delete(path)
  }
  const missing = [...listed.keys()]
  if (missing.length > 0)
    throw new InstallError(
      'manifest-mismatch',
      `The bundle lacks ${missing.length} listed file(s), e.g. "${missing[0]}".`,
    )
  return manifest
}

async function walk(root: string, prefix: string): Promise<string[]> {
  const files: string[] = []
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true })) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`
    if (entry.isDirectory()) files.push(...(await walk(root, path)))
    else if (entry.isFile()) files.push(path)
    else throw new InstallError('unsafe-entry', `"${path}" is neither a folder nor a regular file.`)
  }
  return files
}

function digestOf(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256')
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')))
  })
}

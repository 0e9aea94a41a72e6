import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fsyncDirectory } from '../../platform'
import { downloadArchive } from '../bundle/download'
import { InstallError } from '../bundle/errors'
import { DEFAULT_EXTRACT_LIMITS, extractBundle, type ExtractLimits } from '../bundle/extract'
import { createInstallRunner, type InstallProgress, type InstallRun } from '../bundle/install'
import { integrityHex, type PackPin } from './pin'

/**
 * The LibreOffice WebAssembly pack under `<data>/office/pack/`:
 *   <version>/            a verified, immutable tree (`package/…` as the registry tarball holds it)
 *   <version>/.retrace-pack.json   written last inside staging: a tree without it was never published
 *   .tmp/                 the download and the staging tree, removed on every outcome
 * Publishing is one rename of the staging tree: a failure at any step leaves nothing half-installed.
 */
export interface InstalledPack {
  readonly version: string
  /** The package folder: `dist/server.cjs` and `wasm/` live here. */
  readonly packageDir: string
}

/** Files the worker loads; a tarball without any of them is not the pack, whatever it is called. */
export const PACK_REQUIRED_FILES = ['dist/server.cjs', 'wasm/loader.cjs', 'wasm/soffice.wasm', 'wasm/soffice.data']

export interface PackStore {
  installed(pin: PackPin): Promise<InstalledPack | null>
  /** Starts an install of `pin`, or joins the one already running. */
  install(pin: PackPin, onProgress: (progress: InstallProgress) => void): InstallRun
  running(): InstallRun | undefined
  /** Removes leftovers of installs interrupted by a crash. */
  cleanup(): Promise<void>
}

const MARKER = '.retrace-pack.json'

export function createPackStore(
  officeDir: string,
  options: { limits?: ExtractLimits; stallMs?: number } = {},
): PackStore {
  const packDir = join(officeDir, 'pack')
  const tmpDir = join(packDir, '.tmp')

  async function installed(pin: PackPin): Promise<InstalledPack | null> {
    const dir = join(packDir, pin.version)
    try {
      const marker = JSON.parse(await readFile(join(dir, MARKER), 'utf8')) as { integrity?: unknown }
      // Another build's pin of the same version with other bytes is not this pack.
      if (marker.integrity !== pin.integrity) return null
    } catch {
      return null
    }
    return { version: pin.version, packageDir: join(dir, 'package') }
  }

  async function verifyLayout(staging: string, pin: PackPin): Promise<void> {
    const packageDir = join(staging, 'package')
    let manifest: { name?: unknown; version?: unknown }
    try {
      manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as typeof manifest
    } catch {
      throw new InstallError('manifest-invalid', 'The LibreOffice pack has no readable package/package.json.')
    }
    if (manifest.name !== pin.name || manifest.version !== pin.version) {
      throw new InstallError(
        'manifest-mismatch',
        `The LibreOffice pack is ${String(manifest.name)}@${String(manifest.version)}, not the pinned ${pin.name}@${pin.version}.`,
      )
    }
    for (const file of PACK_REQUIRED_FILES) {
      const info = await stat(join(packageDir, file)).catch(() => undefined)
      if (!info?.isFile()) throw new InstallError('manifest-invalid', `The LibreOffice pack lacks ${file}.`)
    }
  }

  async function run(pin: PackPin, installId: string, emit: (p: Omit<InstallProgress, 'install_id'>) => void) {
    if (await installed(pin)) return
    await mkdir(tmpDir, { recursive: true, mode: 0o700 })
    const archive = join(tmpDir, `${installId}.tgz`)
    const staging = join(tmpDir, `${installId}.staging`)
    try {
      let last = 0
      emit({ phase: 'download', received_bytes: 0, total_bytes: pin.size })
      await downloadArchive(
        {
          url: pin.url,
          size: pin.size,
          digest: { algorithm: 'sha512', hex: integrityHex(pin.integrity) },
          noun: 'LibreOffice pack',
        },
        archive,
        {
          stallMs: options.stallMs,
          onBytes: (received) => {
            // At most one event per 512 KiB (and the last one), real counts only.
            if (received - last >= 512 * 1024 || received === pin.size) {
              last = received
              emit({ phase: 'download', received_bytes: received, total_bytes: pin.size })
            }
          },
        },
      )
      emit({ phase: 'extract', received_bytes: pin.size, total_bytes: pin.size })
      await mkdir(staging, { mode: 0o700 })
      await extractBundle(archive, staging, options.limits ?? DEFAULT_EXTRACT_LIMITS)
      emit({ phase: 'verify', received_bytes: pin.size, total_bytes: pin.size })
      await verifyLayout(staging, pin)
      emit({ phase: 'publish', received_bytes: pin.size, total_bytes: pin.size })
      await writeFile(
        join(staging, MARKER),
        JSON.stringify({ name: pin.name, version: pin.version, integrity: pin.integrity }),
        { mode: 0o600 },
      )
      const target = join(packDir, pin.version)
      // A tree left by another pin of this version (other bytes) is replaced, never merged.
      await rm(target, { recursive: true, force: true })
      try {
        await rename(staging, target)
      } catch (error) {
        throw new InstallError(
          'publish-failed',
          `The LibreOffice pack could not be published (${(error as Error).message}).`,
        )
      }
      await fsyncDirectory(packDir).catch(() => undefined)
    } finally {
      await rm(archive, { force: true })
      await rm(staging, { recursive: true, force: true })
    }
  }

  const runner = createInstallRunner('LibreOffice pack', run)
  return {
    installed,
    running: runner.running,
    install: runner.install,
    async cleanup() {
      const names = await readdir(tmpDir).catch(() => [] as string[])
      await Promise.all(names.map((name) => rm(join(tmpDir, name), { recursive: true, force: true })))
    },
  }
}

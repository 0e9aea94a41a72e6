import { randomUUID } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fsyncDirectory } from '../../platform'
import { downloadArchive } from './download'
import { InstallError } from './errors'
import { DEFAULT_EXTRACT_LIMITS, extractBundle, type ExtractLimits } from './extract'
import { verifyBundle } from './manifest'
import type { BundlePin } from './pin'

/**
 * The optional ONLYOFFICE bundle under `<data>/office/`:
 *   bundles/<version>-<sha256 prefix>/  verified, immutable bundle trees (earlier ones are kept)
 *   current.json                        which one is selected, replaced atomically
 *   tmp/                                downloads and staging trees, removed on every outcome
 * An install downloads, extracts into staging, verifies the manifest, renames the tree into
 * `bundles/` and only then switches `current.json`: any failure leaves the previous selection.
 */

export interface CurrentBundle {
  readonly id: string
  readonly version: string
  readonly entry: string
  readonly dir: string
}

export type InstallPhase = 'download' | 'verify' | 'extract' | 'publish' | 'done' | 'failed'

export interface InstallProgress {
  readonly install_id: string
  readonly phase: InstallPhase
  readonly received_bytes: number
  readonly total_bytes: number
  readonly error?: { code: string; message: string }
}

export interface InstallRun {
  readonly installId: string
  readonly version: string
  readonly done: Promise<{ state: 'installed' } | { state: 'failed'; error: { code: string; message: string } }>
}

export interface BundleStore {
  current(): Promise<CurrentBundle | null>
  /** Starts an install of `pin`, or joins the one already running. */
  install(pin: BundlePin, onProgress: (progress: InstallProgress) => void): InstallRun
  running(): InstallRun | undefined
  /** Removes leftovers of installs interrupted by a crash. */
  cleanup(): Promise<void>
}

/**
 * One install at a time, whoever asks (the ONLYOFFICE bundle and the LibreOffice pack): a second
 * request joins the running one and gets its progress too; a failure is reported as a stable code
 * and a sentence. `subject` names what is installed in the sentences the person reads.
 */
export function createInstallRunner<Pin extends { readonly version: string; readonly size: number }>(
  subject: string,
  run: (pin: Pin, installId: string, emit: (progress: Omit<InstallProgress, 'install_id'>) => void) => Promise<void>,
): {
  install(pin: Pin, onProgress: (progress: InstallProgress) => void): InstallRun
  running(): InstallRun | undefined
} {
  let active: InstallRun | undefined
  const listeners = new Set<(progress: InstallProgress) => void>()
  return {
    running: () => active,
    install(pin, onProgress) {
      listeners.add(onProgress)
      if (active) return active
      const installId = randomUUID()
      let received = 0
      const emit = (p: Omit<InstallProgress, 'install_id'>) => {
        received = p.received_bytes
        for (const listener of listeners) listener({ install_id: installId, ...p })
      }
      const done = run(pin, installId, emit).then(
        () => {
          emit({ phase: 'done', received_bytes: pin.size, total_bytes: pin.size })
          return { state: 'installed' as const }
        },
        (error: unknown) => {
          const failure =
            error instanceof InstallError
              ? // The shared download and extraction word their refusals for "the bundle".
                { code: error.code, message: error.message.replace(/^The bundle/, `The ${subject}`) }
              : { code: 'publish-failed', message: `The ${subject} install failed (${String(error)}).` }
          emit({ phase: 'failed', received_bytes: received, total_bytes: pin.size, error: failure })
          return { state: 'failed' as const, error: failure }
        },
      )
      const record: InstallRun = { installId, version: pin.version, done }
      active = record
      void done.finally(() => {
        if (active === record) active = undefined
        listeners.clear()
      })
      return record
    },
  }
}

export function createBundleStore(
  officeDir: string,
  options: { limits?: ExtractLimits; stallMs?: number } = {},
): BundleStore {
  const bundlesDir = join(officeDir, 'bundles')
  const tmpDir = join(officeDir, 'tmp')
  const pointer = join(officeDir, 'current.json')
  async function current(): Promise<CurrentBundle | null> {
    let selected: { id: string; version: string; entry: string }
    try {
      selected = JSON.parse(await readFile(pointer, 'utf8')) as typeof selected
    } catch {
      return null
    }
    if (typeof selected.id !== 'string' || !/^[\w.-]+$/.test(selected.id)) return null
    const dir = join(bundlesDir, selected.id)
    const info = await stat(join(dir, selected.entry)).catch(() => undefined)
    return info?.isFile() ? { id: selected.id, version: selected.version, entry: selected.entry, dir } : null
  }

  async function run(pin: BundlePin, installId: string, emit: (p: Omit<InstallProgress, 'install_id'>) => void) {
    const id = `${pin.version.replace(/[^\w.-]/g, '_')}-${pin.sha256.slice(0, 12)}`
    const selected = await current()
    if (selected?.id === id) return
    await mkdir(tmpDir, { recursive: true, mode: 0o700 })
    await mkdir(bundlesDir, { recursive: true, mode: 0o700 })
    const archive = join(tmpDir, `${installId}.tar.gz`)
    const staging = join(tmpDir, `${installId}.staging`)
    try {
      const target = join(bundlesDir, id)
      const already = await stat(target).catch(() => undefined)
      if (!already) {
        let last = 0
        emit({ phase: 'download', received_bytes: 0, total_bytes: pin.size })
        await downloadArchive(
          { url: pin.url, size: pin.size, digest: { algorithm: 'sha256', hex: pin.sha256 } },
          archive,
          {
            stallMs: options.stallMs,
            onBytes: (received) => {
              // At most one event per 256 KiB (and the last one), real counts only.
              if (received - last >= 256 * 1024 || received === pin.size) {
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
        const manifest = await verifyBundle(staging, pin.version)
        emit({ phase: 'publish', received_bytes: pin.size, total_bytes: pin.size })
        await writeFile(
          join(staging, '.retrace-bundle.json'),
          JSON.stringify({ id, version: pin.version, entry: manifest.entry, sha256: pin.sha256, url: pin.url }),
        )
        try {
          await rename(staging, target)
        } catch (error) {
          throw new InstallError('publish-failed', `The bundle could not be published (${(error as Error).message}).`)
        }
        await fsyncDirectory(bundlesDir).catch(() => undefined)
      }
      const record = JSON.parse(await readFile(join(target, '.retrace-bundle.json'), 'utf8')) as { entry: string }
      const temp = join(tmpDir, `${installId}.current.json`)
      await writeFile(temp, JSON.stringify({ id, version: pin.version, entry: record.entry }), { mode: 0o600 })
      await rename(temp, pointer)
      await fsyncDirectory(officeDir).catch(() => undefined)
    } finally {
      await rm(archive, { force: true })
      await rm(staging, { recursive: true, force: true })
    }
  }

  const runner = createInstallRunner('bundle', run)
  return {
    current,
    running: runner.running,
    install: runner.install,
    async cleanup() {
      const names = await readdir(tmpDir).catch(() => [] as string[])
      await Promise.all(names.map((name) => rm(join(tmpDir, name), { recursive: true, force: true })))
    },
  }
}

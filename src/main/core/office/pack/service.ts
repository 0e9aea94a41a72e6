import { randomUUID } from 'node:crypto'
import { fail, ok, type OfficeEngine, type Outcome, type ResultOf } from '../../../../shared/protocol'
import type { EventBus } from '../../events'
import type { ExtractLimits } from '../bundle/extract'
import { ALL_FORMATS, conversionTargets } from '../formats'
import type { InstallProgress } from '../bundle/install'
import type { Converter } from '../libreoffice/converter'
import { createPackConverter, type PackConverterOptions } from './converter'
import { createPackStore, type InstalledPack } from './install'
import { loadPackPin, type PackPinState } from './pin'

export interface PackServiceOptions {
  readonly officeDir: string
  readonly pinFile: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly events: EventBus
  readonly log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void
  readonly limits?: ExtractLimits | undefined
  readonly converter?:
    Partial<Pick<PackConverterOptions, 'maxRssBytes' | 'idleMs' | 'startTimeoutMs' | 'maxOldSpaceMb'>> | undefined
}

export interface PackService {
  /** The pack's converter, when it is installed for this build's pin. */
  engine(): Promise<{ version: string; converter: Converter } | undefined>
  /** `office.status`: the `libreoffice-wasm` engine where it is listed, and the `pack` offer. */
  status(nativeFound: boolean): Promise<{ listed: OfficeEngine[]; offer: ResultOf<'office.status'>['pack'] }>
  install(context: {
    idempotencyKey: string | undefined
    projectId: string
  }): Promise<Outcome<ResultOf<'office.pack_install'>>>
  dispose(): void
}

interface KeyRecord {
  fingerprint: string
  installId: string
  version: string
  error?: { code: string; message: string }
}

/** The LibreOffice WebAssembly pack as the Office module uses it: pin, install, status, converter. */
export function createPackService(options: PackServiceOptions): PackService {
  const store = createPackStore(options.officeDir, options.limits ? { limits: options.limits } : {})
  void store.cleanup().catch(() => undefined)
  let active: { dir: string; converter: Converter } | undefined
  const keys = new Map<string, KeyRecord>()
  // Install progress goes to every project whose window asked for (or joined) the install.
  const watchers = new Set<string>()
  const emit = (progress: InstallProgress) => {
    for (const project_id of watchers) options.events.emit('office.pack.progress', { project_id }, progress)
    if (progress.phase === 'done' || progress.phase === 'failed') watchers.clear()
  }

  async function installed(): Promise<{ pin: PackPinState; pack: InstalledPack | null }> {
    const pin = await loadPackPin(options.pinFile, options.env)
    if (pin.kind !== 'pinned') return { pin, pack: null }
    return { pin, pack: await store.installed(pin.pin) }
  }

  return {
    async engine() {
      const { pack } = await installed()
      if (!pack) return undefined
      if (active?.dir !== pack.packageDir) {
        active?.converter.dispose()
        active = {
          dir: pack.packageDir,
          converter: createPackConverter({ ...options.converter, packageDir: pack.packageDir, log: options.log }),
        }
      }
      return { version: pack.version, converter: active.converter }
    },

    async status(nativeFound) {
      const { pin, pack } = await installed()
      const running = store.running()
      const engine: OfficeEngine = pack
        ? {
            id: 'libreoffice-wasm',
            available: true,
            version: pack.version,
            // Installed, but native LibreOffice serves while it is found: the pack is the fallback.
            ...(nativeFound ? { reason: 'native-preferred' } : {}),
            // What native LibreOffice previews and converts: the pack is the same office suite.
            preview: ALL_FORMATS,
            edit: [],
            convert: ALL_FORMATS.map((from) => ({ from, to: conversionTargets(from) })),
          }
        : { id: 'libreoffice-wasm', available: false, reason: 'not-installed', preview: [], edit: [] }
      const offer: ResultOf<'office.status'>['pack'] =
        pin.kind === 'pinned'
          ? {
              pinned: true,
              offered: !nativeFound && pack === null,
              installed: pack !== null,
              version: pin.pin.version,
              size: pin.pin.size,
              ...(pin.pin.unpacked_size !== undefined ? { unpacked_size: pin.pin.unpacked_size } : {}),
              licence: pin.pin.licence,
              source: pin.pin.source,
              ...(running ? { install_id: running.installId } : {}),
            }
          : { pinned: false, offered: false, installed: false, reason: pin.reason }
      // Listed where it matters: no native LibreOffice here, or the pack installed anyway.
      return { listed: !nativeFound || pack ? [engine] : [], offer }
    },

    /**
     * Like the bundle: only through the protocol's authenticated app-origin requests (the agent
     * has no tool for it), with an idempotency key; concurrent requests share one install. Not
     * refused when a native LibreOffice exists: a person may install the pack before removing it.
     */
    async install({ idempotencyKey: key, projectId }) {
      if (key === undefined) return fail('INVALID_REQUEST', '"office.pack_install" needs an idempotency_key.')
      const loaded = await loadPackPin(options.pinFile, options.env)
      if (loaded.kind !== 'pinned') {
        return fail('UNAVAILABLE', loaded.reason, { detail: loaded.reason, reason: 'unpinned' })
      }
      const pin = loaded.pin
      const fingerprint = `${pin.version}:${pin.integrity}`
      const known = keys.get(key)
      if (known && known.fingerprint !== fingerprint) {
        return fail('IDEMPOTENCY_KEY_CONFLICT', 'This idempotency key was used for another pack release.', {
          idempotency_key: key,
        })
      }
      const running = store.running()
      if (known && !running) {
        // A finished install replays its outcome under the same key.
        return ok({
          install_id: known.installId,
          version: known.version,
          ...(known.error ? { state: 'failed' as const, error: known.error } : { state: 'installed' as const }),
        })
      }
      if (!running && (await store.installed(pin))) {
        return ok({ install_id: known?.installId ?? randomUUID(), state: 'installed', version: pin.version })
      }
      watchers.add(projectId)
      const run = store.install(pin, emit)
      const record: KeyRecord = { fingerprint, installId: run.installId, version: run.version }
      keys.set(key, record)
      void run.done.then((outcome) => {
        if (outcome.state !== 'failed') return
        record.error = outcome.error
        options.log('warn', 'LibreOffice pack install failed', outcome.error)
      })
      return ok({ install_id: run.installId, state: 'running', version: run.version })
    },

    dispose() {
      active?.converter.dispose()
      active = undefined
    },
  }
}

import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import {
  fail,
  ok,
  type FailureReasonOf,
  type OfficeEngine,
  type OfficeFormat,
  type Outcome,
  type Owner,
  type ParsedPayloadOf,
  type ResultOf,
  type ScopeOf,
} from '../../../shared/protocol'
import { joinRelPath, parentPath } from '../../../shared/paths'
import type { Disposable } from '../../../shared/disposable'
import type { EventBus } from '../events'
import {
  openForRead,
  type ByteTransfers,
  type HumanOperations,
  type OperationContext,
  type ProjectRoots,
} from '../files'
import type { BlobStore } from '../store'
import { planWrite } from '../journal'
import { createBundleStore, type BundleStore } from './bundle/install'
import { loadPin } from './bundle/pin'
import type { ExtractLimits } from './bundle/extract'
import {
  ALL_FORMATS,
  BUILTIN_EDIT,
  BUILTIN_PREVIEW,
  conversionTargets,
  IMPORT_FILTERS,
  ONLYOFFICE_EDIT,
} from './formats'
import { INSPECT_LIMITS, type Inspection, type InspectionOutcome, type InspectLimits } from './inspect'
import { createInspectRunner } from './inspect-runner'
import { createConverter, type Converter } from './libreoffice/converter'
import { detectLibreOffice, type Detection } from './libreoffice/detect'
import { openInLibreOffice } from './libreoffice/open-external'
import { createPreviewCache } from './preview-cache'
import { trackProgress } from './progress'
import { readSource, recordedSource, type SourceBytes } from './source'
import { conversionUnavailable, noEngine, unavailable } from './preview-outcomes'
import { singleFlight } from './single-flight'
import { createPackService, type PackConverterOptions } from './pack'

export { answerOfficeAsset, OFFICE_CONTENT_TYPES } from './origin'
// Engine-internal (issue 26): ODF/legacy documents for the agent's `read`, wired by the composition root.
export { createReadingConverter, type ReadingConverter } from './read-conversion'

type OfficeActionName =
  | 'office.status'
  | 'office.install'
  | 'office.pack_install'
  | 'office.inspect'
  | 'office.preview'
  | 'office.convert'
  | 'office.open_external'

/** What an Office handler gets of a request: the composition root's project context satisfies it. */
export interface OfficeRequestContext {
  readonly owner: Owner
  readonly idempotencyKey: string | undefined
  readonly project: { readonly project_id: string; readonly root: string }
}

/** App-wide requests (`office.status`) carry no project. */
export type OfficeAppContext = Omit<OfficeRequestContext, 'project'>

type OfficeActions = {
  [A in OfficeActionName]: (
    payload: ParsedPayloadOf<A>,
    context: ScopeOf<A> extends 'project' ? OfficeRequestContext : OfficeAppContext,
  ) => Promise<Outcome<ResultOf<A>>>
}

export interface OfficeModuleOptions {
  /** `build/office-bundle.json` of this build; `RETRACE_OFFICE_BUNDLE` in `env` overrides it. */
  readonly pinFile?: string
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Per conversion; a listener stuck longer is ended and the one-shot path tried. */
  readonly conversionTimeoutMs?: number
  readonly maxSourceBytes?: number
  readonly extractLimits?: ExtractLimits
  /** Bounds of one inspection (inflated bytes, ratio, time, heap); tests tighten them. */
  readonly inspectLimits?: Partial<InspectLimits>
  /** Tests replace the machine's LibreOffice with none (`missing`) or a specific one. */
  readonly detect?: () => Promise<Detection>
  /** `build/office-pack.json` of this build; `RETRACE_OFFICE_PACK` / `RETRACE_OFFICE_PACK_URL` in `env` override it. */
  readonly packPinFile?: string
  /** The pack worker's bounds (memory cap, idle shutdown, load time); tests tighten them. */
  readonly pack?: Partial<Pick<PackConverterOptions, 'maxRssBytes' | 'idleMs' | 'startTimeoutMs' | 'maxOldSpaceMb'>>
}

/** The page-faithful engine serving previews and conversions: native LibreOffice first, else the pack. */
interface FaithfulEngine {
  readonly id: 'libreoffice' | 'libreoffice-wasm'
  readonly version: string // in the preview cache key: a pack PDF and a native one differ
  readonly converter: Converter
}

export interface OfficeModuleDeps {
  readonly dataDir: string
  readonly events: EventBus
  readonly operations: HumanOperations
  readonly log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void
  readonly rootsOf: (root: string) => ProjectRoots
  /** The journal's view of the request's project, for human operations (`office.convert`). */
  readonly operationContext: (context: OfficeRequestContext) => OperationContext
  /** The engine's byte transfer: a preview PDF goes to the content store and out as a blob URL. */
  readonly blobs: BlobStore
  readonly byteTransfers: ByteTransfers
  readonly options?: OfficeModuleOptions
}

type PreviewOutcome = Outcome<ResultOf<'office.preview'>>

/** What the shells need from the Office module: the bundle tree to serve and the origin that serves it. */
export interface OfficeHost {
  /** The selected bundle's folder, resolved per request (an install switches it without a restart). */
  bundleDirectory(): Promise<string | null>
  /** The shell announces the Office origin it serves; `office.status` reports it. */
  attachOrigin(origin: string): Disposable
  /** The LibreOffice converter once started (tests inspect its supervisor). */
  converter(): Promise<Converter | undefined>
  /** Review's pages of a recorded version (issue 26): as `office.preview`, from those exact bytes. */
  recordedPages(request: { path: string; bytes: Uint8Array; context: OfficeRequestContext }): Promise<PreviewOutcome>
}

export interface OfficeModule extends Disposable {
  readonly actions: OfficeActions
  readonly host: OfficeHost
}

const DEFAULT_MAX_SOURCE = 64 * 1024 * 1024

export function createOfficeModule(deps: OfficeModuleDeps): OfficeModule {
  const options = deps.options ?? {}
  const env = options.env ?? process.env
  const officeDir = join(deps.dataDir, 'office')
  const workDir = join(officeDir, 'libreoffice')
  const previews = createPreviewCache(join(officeDir, 'previews'))
  const bundles: BundleStore = createBundleStore(officeDir, { limits: options.extractLimits })
  const pinFile = options.pinFile ?? defaultPinFile()
  const pack = createPackService({
    officeDir,
    pinFile: options.packPinFile ?? defaultPinFile('office-pack.json'),
    env,
    events: deps.events,
    log: deps.log,
    limits: options.extractLimits,
    converter: options.pack,
  })
  const origins = new Set<string>()
  const installKeys = new Map<
    string,
    { fingerprint: string; installId: string; version: string; error?: { code: string; message: string } }
  >()
  const previewFlights = new Map<string, Promise<Outcome<ResultOf<'office.preview'>>>>()
  const convertFlights = new Map<string, Promise<Outcome<ResultOf<'office.convert'>>>>()
  let detection: { at: number; result: Promise<Detection>; missing: boolean } | undefined
  let converter: Promise<Converter | undefined> | undefined
  let disposed = false
  const inspector = createInspectRunner({ ...INSPECT_LIMITS, ...options.inspectLimits })
  void bundles.cleanup().catch(() => undefined)

  function libreOffice(): Promise<Detection> {
    // A missing LibreOffice is looked for again after a while: installing it needs no restart.
    if (!detection || (detection.missing && Date.now() - detection.at > 30_000)) {
      const entry: { at: number; result: Promise<Detection>; missing: boolean } = {
        at: Date.now(),
        result: (options.detect ?? (() => detectLibreOffice(env)))(),
        missing: false,
      }
      void entry.result.then((d) => (entry.missing = d.kind === 'missing'))
      detection = entry
    }
    return detection.result
  }

  async function getConverter(): Promise<Converter | undefined> {
    const found = await libreOffice()
    if (found.kind !== 'found' || disposed) return undefined
    converter ??= Promise.resolve(createConverter({ install: found.install, workDir, env, log: deps.log }))
    return converter
  }

  // Native LibreOffice wins whenever found (faster, lighter, the person's fonts); the pack serves the rest.
  async function getEngine(): Promise<FaithfulEngine | undefined> {
    const found = await libreOffice()
    if (disposed) return undefined
    if (found.kind === 'found') {
      const native = await getConverter()
      return native ? { id: 'libreoffice', version: found.install.version, converter: native } : undefined
    }
    const wasm = await pack.engine()
    return wasm ? { id: 'libreoffice-wasm', version: `wasm-${wasm.version}`, converter: wasm.converter } : undefined
  }

  async function status(): Promise<ResultOf<'office.status'>> {
    const found = await libreOffice()
    const selected = await bundles.current()
    const pin = await loadPin(pinFile, env)
    const libre: OfficeEngine =
      found.kind === 'found'
        ? {
            id: 'libreoffice',
            available: true,
            version: found.install.version,
            ...(found.install.python === null ? { reason: 'no-resident-listener' } : {}),
            preview: ALL_FORMATS,
            edit: [],
            convert: ALL_FORMATS.map((from) => ({ from, to: conversionTargets(from) })),
          }
        : { id: 'libreoffice', available: false, reason: 'not-found', preview: [], edit: [] }
    const origin = [...origins][0]
    const only: OfficeEngine = selected
      ? {
          id: 'onlyoffice',
          available: origin !== undefined,
          version: selected.version,
          entry: selected.entry,
          ...(origin !== undefined ? { origin } : { reason: 'no-origin' }),
          preview: ['docx', 'pptx', 'xlsx', 'doc', 'ppt', 'xls', 'odt', 'ods', 'odp', 'csv'],
          edit: ONLYOFFICE_EDIT,
        }
      : { id: 'onlyoffice', available: false, reason: 'not-installed', preview: [], edit: [] }
    const running = bundles.running()
    const wasm = await pack.status(found.kind === 'found')
    return {
      engines: [
        { id: 'builtin', available: true, preview: BUILTIN_PREVIEW, edit: BUILTIN_EDIT },
        libre,
        ...wasm.listed,
        only,
      ],
      pack: wasm.offer,
      bundle:
        pin.kind === 'pinned'
          ? {
              pinned: true,
              version: pin.pin.version,
              size: pin.pin.size,
              licence: pin.pin.licence,
              source: pin.pin.source,
              ...(running ? { install_id: running.installId } : {}),
            }
          : {
              pinned: false,
              ...(pin.version !== undefined ? { version: pin.version } : {}),
              ...(pin.licence !== undefined ? { licence: pin.licence } : {}),
              ...(pin.source !== undefined ? { source: pin.source } : {}),
            },
    }
  }

  // Install progress goes to every project whose window asked for (or joined) the install.
  const installWatchers = new Set<string>()
  const emitInstall = (progress: Parameters<Parameters<BundleStore['install']>[1]>[0]) => {
    for (const project_id of installWatchers) deps.events.emit('office.install.progress', { project_id }, progress)
    if (progress.phase === 'done' || progress.phase === 'failed') installWatchers.clear()
  }

  async function install(context: OfficeRequestContext): Promise<Outcome<ResultOf<'office.install'>>> {
    const key = context.idempotencyKey
    if (key === undefined) return fail('INVALID_REQUEST', '"office.install" needs an idempotency_key.')
    const pin = await loadPin(pinFile, env)
    if (pin.kind !== 'pinned') return fail('UNAVAILABLE', pin.reason, { detail: pin.reason, reason: 'unpinned' })
    const fingerprint = `${pin.pin.version}:${pin.pin.sha256}`
    const known = installKeys.get(key)
    if (known && known.fingerprint !== fingerprint) {
      return fail('IDEMPOTENCY_KEY_CONFLICT', 'This idempotency key was used for another bundle release.', {
        idempotency_key: key,
      })
    }
    const selected = await bundles.current()
    const running = bundles.running()
    if (known && !running) {
      // A finished install replays its outcome under the same key.
      return ok({
        install_id: known.installId,
        version: known.version,
        ...(known.error ? { state: 'failed' as const, error: known.error } : { state: 'installed' as const }),
      })
    }
    if (!running && selected?.version === pin.pin.version && selected.id.endsWith(pin.pin.sha256.slice(0, 12))) {
      return ok({ install_id: known?.installId ?? randomUUID(), state: 'installed', version: selected.version })
    }
    installWatchers.add(context.project.project_id)
    const run = bundles.install(pin.pin, emitInstall)
    const record: {
      fingerprint: string
      installId: string
      version: string
      error?: { code: string; message: string }
    } = { fingerprint, installId: run.installId, version: run.version }
    installKeys.set(key, record)
    void run.done.then((outcome) => {
      if (outcome.state !== 'failed') return
      record.error = outcome.error
      deps.log('warn', 'Office bundle install failed', outcome.error)
    })
    return ok({ install_id: run.installId, state: 'running', version: run.version })
  }

  async function source(context: OfficeRequestContext, path: string): Promise<Outcome<SourceBytes>> {
    return readSource(deps.rootsOf(context.project.root), path, options.maxSourceBytes ?? DEFAULT_MAX_SOURCE)
  }

  /** The inspection of a snapshot, off the main thread; a file past a bound is refused as TOO_LARGE. */
  async function inspectSource(read: SourceBytes): Promise<Outcome<Inspection>> {
    const outcome: InspectionOutcome = await inspector.inspect(basename(read.path), read.bytes)
    if (outcome.kind === 'inspected') return ok(outcome.inspection)
    return fail('TOO_LARGE', `"${read.path}" cannot be opened: ${outcome.message}`, {
      path: read.path,
      reason: outcome.limit satisfies FailureReasonOf<'TOO_LARGE'>,
      limit: outcome.value,
      ...(outcome.part !== undefined ? { part: outcome.part } : {}),
    })
  }

  async function inspect(
    payload: { path: string },
    context: OfficeRequestContext,
  ): Promise<Outcome<ResultOf<'office.inspect'>>> {
    const read = await source(context, payload.path)
    if (read.kind === 'error') return read
    const inspected = await inspectSource(read.result)
    if (inspected.kind === 'error') return inspected
    const inspection = inspected.result
    return ok({
      path: payload.path,
      revision: read.result.revision,
      size: read.result.bytes.length,
      format: inspection.format,
      state: inspection.state,
      ...(inspection.state !== 'ok' ? { message: inspection.message } : {}),
      ...(inspection.state === 'ok' && inspection.docxLosses
        ? { docx_losses: inspection.docxLosses.map((l) => ({ feature: l.feature, count: l.count })) }
        : {}),
    })
  }

  /** Writes the snapshot where LibreOffice reads it: a private folder, a plain ASCII name. */
  async function stage(read: SourceBytes, format: OfficeFormat) {
    await mkdir(workDir, { recursive: true, mode: 0o700 })
    const dir = await mkdtemp(join(workDir, 'job-'))
    const input = join(dir, `source.${format}`)
    await writeFile(input, read.bytes, { mode: 0o600 })
    return { dir, input, dispose: () => rm(dir, { recursive: true, force: true }) }
  }

  async function preview(payload: { path: string }, context: OfficeRequestContext): Promise<PreviewOutcome> {
    const read = await source(context, payload.path)
    return read.kind === 'error' ? read : pagesOf(read.result, context)
  }

  /** The PDF pages of one snapshot of a document, by the page-faithful engine, cached by revision. */
  async function pagesOf(snapshot: SourceBytes, context: OfficeRequestContext): Promise<PreviewOutcome> {
    const inspected = await inspectSource(snapshot)
    if (inspected.kind === 'error') return inspected
    const inspection = inspected.result
    if (inspection.state !== 'ok') return ok(unavailable(snapshot.path, inspection))
    const faithful = await getEngine()
    if (!faithful) return ok(noEngine(snapshot.path))
    const key = previews.keyOf(snapshot.revision, faithful.version)
    // The cached PDF leaves through the engine's byte transfer: stored by digest in the content
    // store (deduplicated, verified on every read) and served at a short-lived /api/bytes URL.
    const issue = async (file: { path: string; size: number }, cached: boolean) => {
      const bytes = await readFile(file.path)
      const digest = await deps.blobs.put(bytes)
      return ok({
        kind: 'pdf' as const,
        path: snapshot.path,
        revision: snapshot.revision,
        engine: faithful.id,
        pdf: {
          url: deps.byteTransfers.issueBlob(digest, bytes.length, 'application/pdf'),
          mime: 'application/pdf',
          size: bytes.length,
        },
        cached,
      })
    }
    const hit = await previews.get(key)
    if (hit) return issue(hit, true)
    // Two viewers of one revision share one conversion.
    return singleFlight(previewFlights, key, async () => {
      const progress = trackProgress(deps.events, eventOwner(context), 'preview', snapshot.path)
      const staged = await stage(snapshot, inspection.format)
      try {
        const output = join(staged.dir, 'preview.pdf')
        const outcome = await faithful.converter.convert(
          {
            input: staged.input,
            output,
            target: 'pdf',
            timeoutMs: options.conversionTimeoutMs ?? 120_000,
            ...importFilter(inspection.format),
          },
          (phase) => progress.phase(phase),
        )
        progress.finish(outcome.kind === 'ok')
        if (outcome.kind !== 'ok') return ok(conversionUnavailable(snapshot.path, outcome.reason, outcome.message))
        return issue(await previews.put(key, output), false)
      } finally {
        progress.finish(false)
        await staged.dispose()
      }
    })
  }

  async function convert(
    payload: { path: string; to: OfficeFormat },
    context: OfficeRequestContext,
  ): Promise<Outcome<ResultOf<'office.convert'>>> {
    const read = await source(context, payload.path)
    if (read.kind === 'error') return read
    const operation = deps.operationContext(context)
    const canonical = {
      payload: { path: payload.path, to: payload.to },
      precondition: { from_revision: read.result.revision },
    }
    const stored = deps.operations.replayed(operation, 'office.convert', canonical)
    if (stored) {
      if (stored.kind === 'error') return stored
      return ok({
        path: stored.result.path ?? '',
        from_revision: read.result.revision,
        transaction_id: stored.result.transaction_id,
        revision: stored.result.revision ?? '',
      })
    }
    // A retry with the same key while the first is still converting waits for that one.
    return singleFlight(convertFlights, `${context.project.project_id}\u0000${context.idempotencyKey ?? ''}`, () =>
      runConversion(read.result, payload, context, operation, canonical),
    )
  }

  async function runConversion(
    read: SourceBytes,
    payload: { path: string; to: OfficeFormat },
    context: OfficeRequestContext,
    operation: OperationContext,
    canonical: { payload: unknown; precondition: unknown },
  ): Promise<Outcome<ResultOf<'office.convert'>>> {
    const inspected = await inspectSource(read)
    if (inspected.kind === 'error') return inspected
    const inspection = inspected.result
    if (inspection.state !== 'ok') {
      const reason = inspection.state
      return fail(reason === 'unsupported' ? 'UNSUPPORTED' : 'UNAVAILABLE', inspection.message, { reason })
    }
    if (!conversionTargets(inspection.format).includes(payload.to)) {
      return fail(
        'UNSUPPORTED',
        `A ${inspection.format.toUpperCase()} document cannot be converted to ${payload.to.toUpperCase()}.`,
        {
          reason: 'wrong-family',
          from: inspection.format,
          to: payload.to,
          allowed: conversionTargets(inspection.format),
        },
      )
    }
    const faithful = await getEngine()
    if (!faithful) {
      return fail('UNAVAILABLE', 'Converting needs LibreOffice, which is not installed on this machine.', {
        reason: 'no-engine',
      })
    }
    const progress = trackProgress(deps.events, eventOwner(context), 'convert', payload.path)
    const staged = await stage(read, inspection.format)
    try {
      const output = join(staged.dir, `converted.${payload.to}`)
      const outcome = await faithful.converter.convert(
        {
          input: staged.input,
          output,
          target: payload.to,
          timeoutMs: options.conversionTimeoutMs ?? 120_000,
          ...importFilter(inspection.format),
        },
        (phase) => progress.phase(phase),
      )
      if (outcome.kind !== 'ok') {
        progress.finish(false)
        const mapped = conversionUnavailable(payload.path, outcome.reason, outcome.message)
        return fail(outcome.reason === 'wrong-family' ? 'UNSUPPORTED' : 'UNAVAILABLE', mapped.message, {
          reason: mapped.reason,
        })
      }
      progress.phase('publishing')
      // A new file next to the original; a name taken meanwhile moves on to the next free one.
      for (let attempt = 0; attempt < 20; attempt++) {
        const target = candidateName(payload.path, payload.to, attempt)
        const published = await deps.operations.custom(operation, 'office.convert', canonical, (mutator) =>
          planWrite(mutator, { path: target, source: { source_path: output }, expected: null }),
        )
        if (published.kind === 'error' && published.error.code === 'CONFLICT') continue
        progress.finish(published.kind === 'ok')
        if (published.kind === 'error') return published
        return ok({
          path: target,
          from_revision: read.revision,
          transaction_id: published.result.transaction_id,
          revision: published.result.revision ?? '',
        })
      }
      progress.finish(false)
      return fail('CONFLICT', 'No free name was found next to the original for the converted file.', {
        reason: 'no-free-name',
        path: payload.path,
      })
    } finally {
      progress.finish(false)
      await staged.dispose()
    }
  }

  return {
    actions: {
      'office.status': async () => ok(await status()),
      'office.install': async (_payload, context) => install(context),
      'office.pack_install': async (_payload, context) =>
        pack.install({ idempotencyKey: context.idempotencyKey, projectId: context.project.project_id }),
      'office.inspect': inspect,
      'office.preview': preview,
      'office.convert': convert,
      'office.open_external': async ({ path }, context) => {
        // Checked like any read (containment, links, special files), then named by its project path.
        const opened = await openForRead(deps.rootsOf(context.project.root), path)
        if (opened.kind === 'error') return opened
        const isFile = opened.result.kind === 'file'
        opened.result.close()
        if (!isFile) return fail('INVALID_REQUEST', `"${path}" is not a file.`, { path })
        const found = await libreOffice()
        if (found.kind !== 'found') {
          return fail('UNAVAILABLE', 'LibreOffice is not installed on this machine.', { reason: 'no-engine' })
        }
        await openInLibreOffice(found.install.soffice, join(context.project.root, ...path.split('/')), {
          ...process.env,
          ...env,
        })
        return ok({ opened: true as const, engine: 'libreoffice' as const })
      },
    },
    host: {
      bundleDirectory: async () => (await bundles.current())?.dir ?? null,
      attachOrigin(origin) {
        origins.add(origin)
        return { dispose: () => origins.delete(origin) }
      },
      converter: async () => (await getEngine())?.converter,
      recordedPages: async ({ path, bytes, context }) => {
        const read = recordedSource(path, bytes, options.maxSourceBytes ?? DEFAULT_MAX_SOURCE)
        return read.kind === 'error' ? read : pagesOf(read.result, context)
      },
    },
    dispose() {
      disposed = true
      inspector.dispose()
      void converter?.then((c) => c?.dispose())
      pack.dispose()
    },
  }
}

function importFilter(format: OfficeFormat) {
  const filter = IMPORT_FILTERS[format]
  return filter ? { inputFilter: filter } : {}
}

function eventOwner(context: OfficeRequestContext) {
  const session = context.owner.session_id
  return { project_id: context.project.project_id, ...(session !== undefined ? { session_id: session } : {}) }
}

/** A pin under `build/` (`office-bundle.json`, `office-pack.json`) beside the built main bundle (`out/main`), or beside the sources under tests. */
function defaultPinFile(name = 'office-bundle.json'): string {
  // The bundler may put this module in `out/main` or in `out/main/chunks`, and tests run it from
  // `src/main/core/office`: the nearest `build/` above it that holds the pin is this build's.
  const candidates = [1, 2, 3, 4, 5].map((up) => join(__dirname, ...Array<string>(up).fill('..'), 'build'))
  const found = candidates.find((dir) => existsSync(join(dir, name)))
  return join(found ?? candidates[0] ?? '', name)
}

/** `report.doc` → `report.docx`, then `report (1).docx`, `report (2).docx` … in the same folder. */
export function candidateName(path: string, to: OfficeFormat, attempt: number): string {
  const name = basename(path)
  const stem = extname(name) === '' ? name : name.slice(0, -extname(name).length)
  const file = attempt === 0 ? `${stem}.${to}` : `${stem} (${attempt}).${to}`
  const parent = parentPath(path)
  return parent === '' ? file : joinRelPath(parent, file)
}

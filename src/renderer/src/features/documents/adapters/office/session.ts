import type { OfficeFormat } from '../../../../../../shared/protocol'

/**
 * One open Office document: the bytes the built-in editors work on and how the current bytes are
 * produced. Patch editors (slide text, cells) replace `bytes` one edit at a time — each edit starts
 * from what the previous one produced, so two quick edits can never both start from the same
 * bytes and lose one. A live editor (the DOCX editor, ONLYOFFICE) owns the document while it is
 * shown and registers an exporter instead; autosave always asks `export()`.
 */
export class OfficeSession {
  private current: Uint8Array
  private queue: Promise<void> = Promise.resolve()
  private exporter: ((final: boolean) => Promise<Uint8Array>) | null = null
  private readonly listeners = new Set<() => void>()
  private readonly flushers = new Set<() => void>()
  /** Changes a live editor reported, and how many of them the last export took. */
  private liveChanges = 0
  private exportedChanges = 0

  constructor(
    bytes: Uint8Array,
    public revision: string,
    private readonly onChanged: () => void,
  ) {
    this.current = bytes
  }

  get bytes(): Uint8Array {
    return this.current
  }

  /** Runs one patch after the ones before it; `null` means it changed nothing. */
  edit(patch: (bytes: Uint8Array) => Promise<Uint8Array | null>): Promise<void> {
    const run = this.queue.then(async () => {
      const next = await patch(this.current)
      if (next === null) return
      this.current = next
      this.notify()
      this.onChanged()
    })
    this.queue = run.catch(() => undefined)
    return run
  }

  /** A live editor reports its own changes (it keeps the document in its model until export). */
  changed(): void {
    this.liveChanges++
    this.onChanged()
  }

  setExporter(exporter: ((final: boolean) => Promise<Uint8Array>) | null): void {
    this.exporter = exporter
    // A new live editor opened the current bytes: only its own changes need its export.
    this.exportedChanges = this.liveChanges
  }

  /** Fields that commit after a pause register here, so an export never misses what was typed. */
  onFlush(flush: () => void): () => void {
    this.flushers.add(flush)
    return () => this.flushers.delete(flush)
  }

  async export(final: boolean): Promise<Uint8Array> {
    for (const flush of this.flushers) flush()
    await this.queue
    // A live editor that reported nothing since it opened these bytes would only re-serialise
    // them (the DOCX editor rewrites every part): the bytes stay the ones on disk.
    if (!this.exporter || this.liveChanges === this.exportedChanges) return this.current
    const seen = this.liveChanges
    const bytes = await this.exporter(final)
    this.current = bytes
    this.exportedChanges = seen
    this.notify()
    return bytes
  }

  /** Other bytes on disk (an outside change of a clean document): every view re-reads them. */
  replace(bytes: Uint8Array, revision: string): void {
    this.current = bytes
    this.revision = revision
    this.notify()
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private notify() {
    for (const listener of this.listeners) listener()
  }
}

const BY_EXTENSION: Record<string, OfficeFormat> = {
  docx: 'docx',
  docm: 'docx',
  dotx: 'docx',
  pptx: 'pptx',
  pptm: 'pptx',
  ppsx: 'pptx',
  potx: 'pptx',
  xlsx: 'xlsx',
  xlsm: 'xlsx',
  xltx: 'xlsx',
  doc: 'doc',
  dot: 'doc',
  ppt: 'ppt',
  pps: 'ppt',
  xls: 'xls',
  xlt: 'xls',
  odt: 'odt',
  ods: 'ods',
  odp: 'odp',
  rtf: 'rtf',
}

/** The format the name promises; `office.inspect` (the content) wins when it answers. */
export function formatFromPath(path: string): OfficeFormat | null {
  const extension = path.slice(path.lastIndexOf('.') + 1).toLowerCase()
  return BY_EXTENSION[extension] ?? null
}

/** Macro-enabled packages: their VBA part must survive, so only part patchers may touch them. */
export function isMacroEnabled(path: string): boolean {
  return /\.(docm|pptm|xlsm)$/i.test(path)
}

/** The OOXML format a legacy or ODF document converts into (same family, spec 10). */
export function conversionTarget(format: OfficeFormat): OfficeFormat | null {
  switch (format) {
    case 'doc':
    case 'odt':
    case 'rtf':
      return 'docx'
    case 'ppt':
    case 'odp':
      return 'pptx'
    case 'xls':
    case 'ods':
      return 'xlsx'
    default:
      return null
  }
}

export function downloadBytes(bytes: Uint8Array, path: string, mime = 'application/octet-stream'): void {
  const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mime }))
  const anchor = document.createElement('a')
  anchor.href = url
  anchor.download = path.slice(path.lastIndexOf('/') + 1)
  anchor.click()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

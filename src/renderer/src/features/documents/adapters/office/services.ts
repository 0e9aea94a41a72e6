import type { EventDataOf, OfficeFormat, ResultOf } from '../../../../../../shared/protocol'

/**
 * What the Office adapter may ask of the engine — about its own document only. The host binds
 * every call to the document's project and path, so the adapter still cannot read or write any
 * other file: it can inspect this file, have LibreOffice render it to PDF, convert it into a
 * **new** file, open it in the person's LibreOffice, and read or install the Office engines.
 * Its edits still leave through the host's autosave (`changed` + `export()`), never from here.
 */
export interface OfficeServices {
  status(signal?: AbortSignal): Promise<ServiceOutcome<OfficeStatus>>
  inspect(signal?: AbortSignal): Promise<ServiceOutcome<OfficeInspection>>
  /** LibreOffice's PDF of the current revision, its bytes already fetched through the byte transfer. */
  preview(signal?: AbortSignal): Promise<ServiceOutcome<OfficePreview>>
  /** Writes a new file next to this one (legacy → OOXML, ODF export); the original is never touched. */
  convert(to: OfficeFormat, signal?: AbortSignal): Promise<ServiceOutcome<{ path: string }>>
  openExternal(): Promise<ServiceOutcome<{ opened: true }>>
  /** Starts (or joins) the ONLYOFFICE bundle install; progress arrives through `onInstallProgress`. */
  install(): Promise<ServiceOutcome<ResultOf<'office.install'>>>
  onInstallProgress(listener: (progress: EventDataOf<'office.install.progress'>) => void): () => void
  /** Starts (or joins) the LibreOffice WebAssembly pack install; progress through `onPackProgress`. */
  installPack(): Promise<ServiceOutcome<ResultOf<'office.pack_install'>>>
  onPackProgress(listener: (progress: EventDataOf<'office.pack.progress'>) => void): () => void
  /** LibreOffice work on this document still running after a second (then every second). */
  onProgress(listener: (progress: EventDataOf<'office.progress'>) => void): () => void
  /** Shows another project file in a tab (the file a conversion just wrote); navigation only. */
  openFile(path: string): void
}

export type OfficeStatus = ResultOf<'office.status'>
export type OfficeInspection = ResultOf<'office.inspect'>
export type OfficeEngine = OfficeStatus['engines'][number]

export type OfficePreview =
  | { readonly kind: 'pdf'; readonly bytes: Uint8Array; readonly revision: string; readonly cached: boolean }
  | {
      readonly kind: 'unavailable'
      readonly reason: Extract<ResultOf<'office.preview'>, { kind: 'unavailable' }>['reason']
      readonly message: string
    }

export type ServiceOutcome<T> =
  | { readonly kind: 'ok'; readonly result: T }
  | {
      readonly kind: 'error'
      /** A protocol error code, or `timeout` / `cancelled` / `disconnected` / `fetch-failed`. */
      readonly code: string
      readonly message: string
      readonly details?: Readonly<Record<string, unknown>>
    }

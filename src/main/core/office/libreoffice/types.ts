import type { OfficeFormat } from '../../../../shared/protocol'

export interface ConversionJob {
  /** Absolute path of the snapshot to convert (a private copy, never the project file). */
  readonly input: string
  /** Absolute path the result is written to. */
  readonly output: string
  readonly target: 'pdf' | OfficeFormat
  /** The import filter and its options, for inputs LibreOffice must not guess (`IMPORT_FILTERS`). */
  readonly inputFilter?: { readonly name: string; readonly options: string }
  readonly timeoutMs: number
  readonly signal?: AbortSignal
}

export type ConversionFailure =
  /** LibreOffice asked for a password. */
  | 'password'
  /** The document could not be loaded (damaged or not what its name says). */
  | 'load-failed'
  /** The target format belongs to another document family. */
  | 'wrong-family'
  | 'timeout'
  /** The resident listener died during this document. */
  | 'crashed'
  | 'aborted'
  | 'failed'

export type ConversionOutcome =
  | { kind: 'ok'; engine: 'resident' | 'one-shot' | 'wasm' }
  | { kind: 'failed'; reason: ConversionFailure; message: string }

export type ConversionPhase = 'queued' | 'starting-engine' | 'converting'

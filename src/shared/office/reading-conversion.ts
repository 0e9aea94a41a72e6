/**
 * What converting an ODF or legacy Office document into its OOXML family gives the agent's `read`
 * (issue 26): the Office module answers it, the documents module asks through a port. Declared
 * here because neither engine module may import the other (spec 01).
 */
export type ReadingConversionOutcome =
  | { kind: 'converted'; bytes: Uint8Array; format: 'docx' | 'xlsx' | 'pptx' }
  /** No LibreOffice on this machine and no WebAssembly pack installed: the convert-first answer stays. */
  | { kind: 'no-engine' }
  | {
      kind: 'failed'
      reason: 'timeout' | 'too-large' | 'password' | 'damaged' | 'unsupported' | 'failed'
      message: string
    }

import { useEffect, useState } from 'react'
import type { ResultOf } from '../../../../shared/protocol'
import type { RequestClient } from '../../transport'
import { useClient } from '../../ui/client-context'
import { fetchBytes } from '../documents'

type OfficePreview = Extract<ResultOf<'review.preview'>, { kind: 'office' }>

/** The LibreOffice rendering of one recorded version, or why there is none. */
export type VersionPages =
  | { readonly kind: 'converting' }
  | { readonly kind: 'pdf'; readonly bytes: Uint8Array; readonly engine: 'libreoffice' | 'libreoffice-wasm' }
  | { readonly kind: 'unavailable'; readonly reason: string; readonly message: string }

/** One side of an Office row in Review: its recorded bytes and, once drawn, its pages. */
export type OfficeVersion =
  | { readonly kind: 'loading' }
  | { readonly kind: 'absent' }
  | { readonly kind: 'failed' }
  | { readonly kind: 'ready'; readonly bytes: Uint8Array; readonly pages: VersionPages }

export type OfficeVersions = { readonly before: OfficeVersion; readonly after: OfficeVersion }

const SIDES = ['before', 'after'] as const
/** The engine bounds a conversion at 120 s; a cold pack start comes on top of it. */
const PAGES_TIMEOUT_MS = 180_000

/**
 * Both recorded versions of an Office row. The bytes come first (the built-in slide renderer shows
 * them at once); the LibreOffice pages are asked for separately, since a cold conversion takes
 * seconds, and replace the built-in pictures when they arrive. With no engine nothing is converted.
 */
export function useOfficeVersions(
  owner: { project_id: string; session_id?: string },
  snapshotId: string,
  path: string,
  enabled: boolean,
  /** Changed after the pack was installed: both versions are asked for again. */
  attempt = 0,
): OfficeVersions {
  const client = useClient()
  // Keyed by what they are versions of: another row (or a retry) never shows the previous pictures.
  const key = `${snapshotId}\u0000${path}\u0000${attempt}`
  const [loaded, setLoaded] = useState<{ key: string; versions: OfficeVersions }>({ key: '', versions: LOADING })
  useEffect(() => {
    if (!enabled) return
    const controller = new AbortController()
    const set = (side: 'before' | 'after', update: (current: OfficeVersion) => OfficeVersion) => {
      if (controller.signal.aborted) return
      setLoaded((current) => {
        const versions = current.key === key ? current.versions : LOADING
        return { key, versions: { ...versions, [side]: update(versions[side]) } }
      })
    }
    for (const side of SIDES) {
      void loadSide(client, { owner, snapshotId, path, side }, controller.signal, (version) => set(side, version))
    }
    return () => controller.abort()
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, key, owner.project_id, owner.session_id, enabled])
  return loaded.key === key ? loaded.versions : LOADING
}

const LOADING: OfficeVersions = { before: { kind: 'loading' }, after: { kind: 'loading' } }

async function loadSide(
  client: RequestClient,
  request: {
    owner: { project_id: string; session_id?: string }
    snapshotId: string
    path: string
    side: 'before' | 'after'
  },
  signal: AbortSignal,
  update: (change: (current: OfficeVersion) => OfficeVersion) => void,
): Promise<void> {
  const ask = (pages: boolean) =>
    client.request(
      'review.preview',
      { snapshot_id: request.snapshotId, path: request.path, side: request.side, ...(pages ? { pages } : {}) },
      { owner: request.owner, signal, ...(pages ? { timeoutMs: PAGES_TIMEOUT_MS } : {}) },
    )
  const first = await ask(false)
  if (first.kind !== 'ok') return update(() => ({ kind: 'failed' }))
  if (first.result.kind === 'absent') return update(() => ({ kind: 'absent' }))
  if (first.result.kind !== 'office') return update(() => ({ kind: 'failed' }))
  const bytes = await fetchBytes(first.result.url, first.result.mime, signal)
  if (bytes.kind !== 'ok') return update(() => ({ kind: 'failed' }))
  update(() => ({ kind: 'ready', bytes: bytes.bytes, pages: { kind: 'converting' } }))
  const pages = await pagesOf(await ask(true), signal)
  update((current) => (current.kind === 'ready' ? { ...current, pages } : current))
}

async function pagesOf(
  outcome: Awaited<ReturnType<RequestClient['request']>>,
  signal: AbortSignal,
): Promise<VersionPages> {
  const failed = { kind: 'unavailable', reason: 'conversion-failed', message: '' } as const
  if (outcome.kind !== 'ok') return failed
  const preview = outcome.result as ResultOf<'review.preview'>
  if (preview.kind !== 'office' || !preview.pages) return failed
  const pages: NonNullable<OfficePreview['pages']> = preview.pages
  if (pages.kind === 'unavailable') return pages
  const pdf = await fetchBytes(pages.url, 'application/pdf', signal)
  return pdf.kind === 'ok' ? { kind: 'pdf', bytes: pdf.bytes, engine: pages.engine } : failed
}

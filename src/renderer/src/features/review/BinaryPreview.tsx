import { useEffect, useMemo, useState } from 'react'
import { useClient } from '../../ui/client-context'
import {
  DocumentHost,
  loadBytes,
  pageViewState,
  resolveAdapter,
  type BytesOutcome,
  type DocumentContent,
} from '../documents'
import { useI18n, type MessageKey } from '../../i18n'

/**
 * Before and after of a binary file, each shown read-only by the same document adapter a tab
 * would use (image, PDF, …), from the bytes the review snapshot pinned.
 */
export function BinaryPreview(props: {
  owner: { project_id: string; session_id?: string }
  snapshotId: string
  path: string
  /** PDF: the page both sides open at (a changed page of a document diff); else the first. */
  page?: number
}) {
  const client = useClient()
  const { t } = useI18n()
  const [sides, setSides] = useState<{ before: BytesOutcome | null; after: BytesOutcome | null }>({
    before: null,
    after: null,
  })
  const { owner, snapshotId, path } = props
  useEffect(() => {
    const controller = new AbortController()
    for (const side of ['before', 'after'] as const) {
      void loadBytes(client, { kind: 'review-side', owner, snapshotId, path, side }, controller.signal).then(
        (bytes) => {
          if (!controller.signal.aborted) setSides((current) => ({ ...current, [side]: bytes }))
        },
      )
    }
    return () => controller.abort()
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, snapshotId, path, owner.project_id, owner.session_id])

  const view = (side: 'before' | 'after', bytes: BytesOutcome | null) => {
    const label = `${path} (${t(`review.${side}`)})`
    let body
    if (bytes === null) body = <p className="review-note">{t('review.loading')}</p>
    else if (bytes.kind === 'absent') body = <p className="review-note">{t('review.absent')}</p>
    else if (bytes.kind === 'unavailable')
      body = (
        <p className="review-note">
          {bytes.mime ?? ''} · {t('review.bytes', { size: bytes.size ?? 0 })}
        </p>
      )
    else {
      const entry = resolveAdapter({ kind: 'binary', mime: bytes.mime, path, size: bytes.bytes.length })
      const content: DocumentContent = { kind: 'bytes', bytes: bytes.bytes, mime: bytes.mime }
      body = entry ? (
        <DocumentHost
          entry={entry}
          content={content}
          revision={side}
          path={label}
          readOnly
          size="compact"
          viewState={props.page !== undefined ? pageViewState(props.page, true) : undefined}
        />
      ) : (
        <p className="review-note">{bytes.mime}</p>
      )
    }
    return (
      <figure className="review-preview-side" data-testid={`review-preview-${side}`}>
        <figcaption>{t(`review.${side}`)}</figcaption>
        {body}
      </figure>
    )
  }
  const { before, after } = sides
  const comparable =
    before?.kind === 'ok' && after?.kind === 'ok' && OVERLAYABLE.test(before.mime) && OVERLAYABLE.test(after.mime)
  const [mode, setMode] = useState<CompareMode>('side')
  return (
    <div className="review-preview-frame">
      {comparable && (
        <div className="review-compare-bar" role="radiogroup" aria-label={t('compare.mode')}>
          {COMPARE_MODES.map((id) => (
            <button
              key={id}
              type="button"
              role="radio"
              aria-checked={mode === id}
              className="review-compare-mode"
              onClick={() => setMode(id)}
            >
              {t(COMPARE_LABEL[id])}
            </button>
          ))}
        </div>
      )}
      {comparable && mode === 'difference' && before.kind === 'ok' && after.kind === 'ok' ? (
        <DifferenceMask before={before} after={after} path={path} />
      ) : comparable && mode !== 'side' && before.kind === 'ok' && after.kind === 'ok' ? (
        <Overlay before={before} after={after} mode={mode === 'swipe' ? 'swipe' : 'onion'} path={path} />
      ) : (
        <div className="review-preview">
          {view('before', before)}
          {view('after', after)}
        </div>
      )}
    </div>
  )
}

const COMPARE_MODES = ['side', 'swipe', 'onion', 'difference'] as const
type CompareMode = (typeof COMPARE_MODES)[number]
const COMPARE_LABEL = {
  side: 'compare.sideBySide',
  swipe: 'compare.swipe',
  onion: 'compare.onion',
  difference: 'compare.difference',
} as const satisfies Record<CompareMode, MessageKey>

/** Formats both sides of which can be laid over each other as plain `<img>`s. */
const OVERLAYABLE = /^image\/(png|jpeg|gif|webp|bmp|avif|x-icon|vnd\.microsoft\.icon|svg\+xml)$/

/**
 * Before and after stacked on one spot: "swipe" shows the after image left of a movable line,
 * "onion skin" fades the after image over the before one. Both are `<img>`s from blob URLs (an
 * SVG's scripts never run there).
 */
function Overlay(props: {
  before: Extract<BytesOutcome, { kind: 'ok' }>
  after: Extract<BytesOutcome, { kind: 'ok' }>
  mode: 'swipe' | 'onion'
  path: string
}) {
  const { t } = useI18n()
  const [position, setPosition] = useState(50)
  const { before, after } = props
  const urls = useMemo(
    () => ({
      before: URL.createObjectURL(new Blob([before.bytes as Uint8Array<ArrayBuffer>], { type: before.mime })),
      after: URL.createObjectURL(new Blob([after.bytes as Uint8Array<ArrayBuffer>], { type: after.mime })),
    }),
    [before, after],
  )
  useEffect(
    () => () => {
      URL.revokeObjectURL(urls.before)
      URL.revokeObjectURL(urls.after)
    },
    [urls],
  )
  return (
    <div className="review-overlay" data-testid="review-overlay" data-mode={props.mode}>
      <div className="review-overlay-stack">
        <img src={urls.before} alt={`${props.path} (${t('review.before')})`} />
        <img
          className="review-overlay-after"
          src={urls.after}
          alt={`${props.path} (${t('review.after')})`}
          style={props.mode === 'swipe' ? { clipPath: `inset(0 ${100 - position}% 0 0)` } : { opacity: position / 100 }}
        />
      </div>
      <input
        type="range"
        min={0}
        max={100}
        value={position}
        aria-label={t('compare.position')}
        onChange={(event) => setPosition(Number(event.target.value))}
      />
    </div>
  )
}

/**
 * Past this many pixels a side is not compared (64 MiB of RGBA per side, the reader's canvas limit):
 * the difference of two posters is not worth freezing the window for.
 */
const MAX_DIFFERENCE_PIXELS = 2 ** 24

type Decoded = { readonly width: number; readonly height: number; readonly pixels: Uint8ClampedArray }

async function decodePixels(side: Extract<BytesOutcome, { kind: 'ok' }>): Promise<Decoded | null> {
  const url = URL.createObjectURL(new Blob([side.bytes as Uint8Array<ArrayBuffer>], { type: side.mime }))
  try {
    // An <img> decodes every overlayable format, SVG included (scripts never run in an image).
    const image = new Image()
    image.src = url
    await image.decode()
    const width = image.naturalWidth
    const height = image.naturalHeight
    if (width === 0 || height === 0 || width * height > MAX_DIFFERENCE_PIXELS) return null
    const canvas = document.createElement('canvas')
    canvas.width = width
    canvas.height = height
    const context = canvas.getContext('2d', { willReadFrequently: true })
    if (!context) return null
    context.drawImage(image, 0, 0)
    return { width, height, pixels: context.getImageData(0, 0, width, height).data }
  } catch {
    return null
  } finally {
    URL.revokeObjectURL(url)
  }
}

/** Small images are drawn at a whole multiple up to this width, so a one-pixel change is still seen. */
const MASK_MIN_WIDTH = 320
const upscale = (image: ImageData) => Math.max(1, Math.min(8, Math.floor(MASK_MIN_WIDTH / image.width)))

type MaskState =
  | { kind: 'loading' }
  | { kind: 'failed' }
  | { kind: 'sizes'; before: string; after: string }
  | { kind: 'ready'; image: ImageData; differing: number; total: number }

/**
 * The pixel-difference mask: the after image dimmed, every pixel whose colour or opacity changed
 * drawn in full magenta over it, so a one-pixel change is as visible as a repainted half. Both
 * sides must have the same size; a resize says so instead of comparing a stretched picture.
 */
function DifferenceMask(props: {
  before: Extract<BytesOutcome, { kind: 'ok' }>
  after: Extract<BytesOutcome, { kind: 'ok' }>
  path: string
}) {
  const { t } = useI18n()
  const [state, setState] = useState<MaskState>({ kind: 'loading' })
  const { before, after } = props
  useEffect(() => {
    let live = true
    void Promise.all([decodePixels(before), decodePixels(after)]).then(([a, b]) => {
      if (!live) return
      if (!a || !b) return setState({ kind: 'failed' })
      if (a.width !== b.width || a.height !== b.height)
        return setState({ kind: 'sizes', before: `${a.width}×${a.height}`, after: `${b.width}×${b.height}` })
      const out = new ImageData(b.width, b.height)
      let differing = 0
      for (let i = 0; i < b.pixels.length; i += 4) {
        const changed =
          a.pixels[i] !== b.pixels[i] ||
          a.pixels[i + 1] !== b.pixels[i + 1] ||
          a.pixels[i + 2] !== b.pixels[i + 2] ||
          a.pixels[i + 3] !== b.pixels[i + 3]
        if (changed) {
          differing++
          out.data[i] = 255
          out.data[i + 1] = 0
          out.data[i + 2] = 200
          out.data[i + 3] = 255
        } else {
          // Dimmed: a quarter of the after colour on mid grey, so the unchanged picture still orients.
          for (let c = 0; c < 3; c++) out.data[i + c] = 96 + Math.round((b.pixels[i + c] ?? 0) / 4)
          out.data[i + 3] = 255
        }
      }
      setState({ kind: 'ready', image: out, differing, total: b.width * b.height })
    })
    return () => {
      live = false
    }
  }, [before, after])
  const draw = (canvas: HTMLCanvasElement | null) => {
    if (!canvas || state.kind !== 'ready') return
    canvas.width = state.image.width
    canvas.height = state.image.height
    canvas.getContext('2d')?.putImageData(state.image, 0, 0)
  }
  return (
    <div className="review-overlay" data-testid="review-difference" data-state={state.kind}>
      {state.kind === 'loading' && <p className="review-note">{t('review.loading')}</p>}
      {state.kind === 'failed' && <p className="review-note">{t('compare.differenceFailed')}</p>}
      {state.kind === 'sizes' && (
        <p className="review-note" role="note">
          {t('compare.sizesDiffer', { before: state.before, after: state.after })}
        </p>
      )}
      {state.kind === 'ready' && (
        <>
          <canvas
            ref={draw}
            className="review-diff-canvas"
            style={{ width: state.image.width * upscale(state.image) }}
            role="img"
            aria-label={t('compare.differenceLabel', { path: props.path })}
            data-differing={state.differing}
          />
          <p className="review-note" role="status">
            {t('compare.differenceCount', { count: state.differing, total: state.total })}
          </p>
        </>
      )}
    </div>
  )
}

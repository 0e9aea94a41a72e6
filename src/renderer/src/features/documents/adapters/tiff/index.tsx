import { useEffect, useRef, useState } from 'react'
import { useI18n } from '../../../../i18n'
import { ErrorLine } from '../../../../ui/ErrorLine'
import { bytesOf, canvasPng, ConvertToPng, mountReactView } from '../image/common'
import type { DocumentAdapter, MountOptions, MountedDocument } from '../types'
import type { TiffRequest, TiffResponse } from './tiff.worker'
import '../image/image.css'
import '../psd/psd.css'

/** A page that takes longer than this to decode is abandoned (the worker is terminated). */
const DECODE_TIMEOUT_MS = 30_000

/**
 * TIFF, read-only (spec 09): utif2 decodes in a worker, one page at a time, with a pixel limit and
 * a time limit; multi-page files get page navigation; 16-bit and CMYK pages are converted to 8-bit
 * RGB for display, and the view says so.
 */
export const tiffAdapter: DocumentAdapter = {
  async mount(container, options): Promise<MountedDocument> {
    return mountReactView(container, options, 'tiff-adapter', (content, revision) => (
      <TiffView key={revision} bytes={bytesOf(content)} options={options} />
    ))
  },
}

type PageState = Extract<TiffResponse, { kind: 'page' }>

function TiffView(props: { bytes: Uint8Array; options: MountOptions }) {
  const { t } = useI18n()
  const canvas = useRef<HTMLCanvasElement>(null)
  const worker = useRef<Worker | null>(null)
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const [pages, setPages] = useState(0)
  const [index, setIndex] = useState(0)
  const [page, setPage] = useState<PageState | null>(null)
  const [failed, setFailed] = useState<string | null>(null)
  const compact = props.options.size === 'compact'

  useEffect(() => {
    let created: Worker
    const start = () => {
      created = new Worker(new URL('./tiff.worker.ts', import.meta.url), { type: 'module', name: 'tiff' })
      worker.current = created
      created.onmessage = (event: MessageEvent<TiffResponse>) => {
        clearTimeout(timer.current)
        const message = event.data
        if (message.kind === 'failed') return setFailed(t('tiff.failed', { message: message.message }))
        if (message.kind === 'opened') {
          setPages(message.pages)
          if (message.pages === 0) return setFailed(t('tiff.failed', { message: 'no pages' }))
          request({ kind: 'page', index: 0 })
          return
        }
        setPage(message)
        const element = canvas.current
        if (element && message.image) {
          element.width = message.image.width
          element.height = message.image.height
          element.getContext('2d')?.drawImage(message.image, 0, 0)
          element.dataset.rendered = String(message.index + 1)
          message.image.close()
        }
      }
      const copy = props.bytes.slice().buffer
      request({ kind: 'open', bytes: copy }, [copy])
    }
    const request = (message: TiffRequest, transfer: Transferable[] = []) => {
      clearTimeout(timer.current)
      timer.current = setTimeout(() => {
        created.terminate()
        setFailed(t('tiff.timeout', { seconds: DECODE_TIMEOUT_MS / 1000 }))
      }, DECODE_TIMEOUT_MS)
      created.postMessage(message, transfer)
    }
    start()
    return () => {
      clearTimeout(timer.current)
      created.terminate()
      worker.current = null
    }
  }, [props.bytes, t])

  const go = (next: number) => {
    if (next < 0 || next >= pages || !worker.current) return
    setIndex(next)
    worker.current.postMessage({ kind: 'page', index: next } satisfies TiffRequest)
  }

  const notes = [
    page && page.bits > 8 ? t('tiff.deep', { bits: page.bits }) : null,
    page?.cmyk ? t('tiff.cmyk') : null,
    page?.tooLarge ? t('tiff.tooLarge', { page: page.index + 1, width: page.width, height: page.height }) : null,
    page?.unsupported
      ? t('tiff.unsupported', {
          page: page.index + 1,
          encoding: t(page.unsupported === 'jpeg-alpha' ? 'tiff.encoding.jpegAlpha' : 'tiff.encoding.floatPredictor'),
        })
      : null,
  ].filter(Boolean)

  return (
    <div className="psd-view tiff-view" data-testid="tiff-preview" data-page={page ? page.index + 1 : 0}>
      {!compact && (
        <div className="image-preview-bar" role="toolbar" aria-label={t('tiff.pages')}>
          <span className="badge">{t('image.previewOnly')}</span>
          {pages > 1 && (
            <>
              <button type="button" className="image-tool" disabled={index === 0} onClick={() => go(index - 1)}>
                {t('tiff.previous')}
              </button>
              <span role="status" data-testid="tiff-page">
                {t('tiff.page', { page: index + 1, pages })}
              </span>
              <button type="button" className="image-tool" disabled={index >= pages - 1} onClick={() => go(index + 1)}>
                {t('tiff.next')}
              </button>
            </>
          )}
          <span className="image-preview-note" data-testid="tiff-note">
            {notes.join(' ')}
          </span>
          {page && page.image !== null && (
            <ConvertToPng
              toPng={async () => (canvas.current ? canvasPng(canvas.current) : new Uint8Array())}
              createCopy={props.options.createCopy}
              openFile={props.options.openFile}
            />
          )}
        </div>
      )}
      {failed ? (
        <ErrorLine className="viewer-note viewer-error" message={failed} />
      ) : (
        <div className="image-view image-view-full psd-canvas">
          <canvas ref={canvas} data-testid="tiff-canvas" role="img" aria-label={props.options.path} />
        </div>
      )}
    </div>
  )
}

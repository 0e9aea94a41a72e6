import { useEffect, useRef, useState } from 'react'
import { useI18n } from '../../i18n'

/**
 * The first page of a PDF drawn on a canvas by pdf.js (loaded on demand). Scripting stays off and
 * the document never reaches the DOM as content: only pixels are shown (spec 11 "Documents").
 */
export function PdfFirstPage(props: { base64: string; label: string }) {
  const { t } = useI18n()
  const canvas = useRef<HTMLCanvasElement>(null)
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    let cancelled = false
    let destroy: (() => void) | undefined
    void (async () => {
      try {
        const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs')
        if (!pdfjs.GlobalWorkerOptions.workerPort) {
          pdfjs.GlobalWorkerOptions.workerPort = new Worker(
            new URL('pdfjs-dist/legacy/build/pdf.worker.min.mjs', import.meta.url),
            { type: 'module' },
          )
        }
        const data = Uint8Array.from(atob(props.base64), (c) => c.charCodeAt(0))
        const task = pdfjs.getDocument({ data, enableXfa: false })
        destroy = () => void task.destroy()
        const document = await task.promise
        const page = await document.getPage(1)
        const base = page.getViewport({ scale: 1 })
        const viewport = page.getViewport({ scale: Math.min(2, 320 / base.width) })
        const target = canvas.current
        if (cancelled || !target) return
        target.width = Math.ceil(viewport.width)
        target.height = Math.ceil(viewport.height)
        await page.render({ canvas: target, viewport }).promise
        target.dataset.rendered = 'true'
      } catch {
        if (!cancelled) setFailed(true)
      }
    })()
    return () => {
      cancelled = true
      destroy?.()
    }
  }, [props.base64])
  return failed ? (
    <p className="review-note">{t('review.pdfFailed')}</p>
  ) : (
    <canvas ref={canvas} className="review-pdf" aria-label={props.label} data-testid="review-pdf" />
  )
}

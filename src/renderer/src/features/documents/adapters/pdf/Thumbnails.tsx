import { useEffect, useRef } from 'react'
import { useI18n } from '../../../../i18n'
import { useStore } from '../../../../ui/store'
import type { PdfReader } from './reader'
import { THUMBNAIL_WIDTH } from './thumbnails'

/**
 * Page thumbnails in the sidebar. Every page has a button of the right size from the start (so the
 * list scrolls through all of them), but pixels are drawn only for the ones scrolled into view,
 * and only a bounded number are kept (`ThumbnailRenderer`).
 */
export function Thumbnails(props: { reader: PdfReader }) {
  const { t } = useI18n()
  const { reader } = props
  const pageCount = useStore(reader.store, (s) => s.pageCount)
  const current = useStore(reader.store, (s) => s.page)
  const aspect = useStore(reader.store, (s) => s.pageAspect)
  const list = useRef<HTMLOListElement>(null)
  const renderer = reader.thumbnails

  useEffect(() => {
    const root = list.current
    if (!root || !renderer) return
    const slots = new Map<number, HTMLElement>()
    for (const slot of root.querySelectorAll<HTMLElement>('[data-thumbnail-page]')) {
      slots.set(Number(slot.dataset.thumbnailPage), slot)
    }
    const show = (page: number) => {
      const slot = slots.get(page)?.querySelector<HTMLElement>('.pdf-thumbnail-image')
      if (!slot) return
      const canvas = renderer.canvas(page)
      if (canvas) {
        if (canvas.parentElement !== slot) slot.replaceChildren(canvas)
        slot.style.aspectRatio = `${canvas.width} / ${canvas.height}`
        slot.dataset.drawn = 'true'
      } else {
        slot.replaceChildren()
        delete slot.dataset.drawn
      }
    }
    const unsubscribe = renderer.onRendered(show)
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          const page = Number((entry.target as HTMLElement).dataset.thumbnailPage)
          renderer.want(page, entry.isIntersecting)
          if (entry.isIntersecting) show(page)
        }
      },
      { root: root.parentElement, rootMargin: '100px 0px' },
    )
    for (const slot of slots.values()) observer.observe(slot)
    return () => {
      observer.disconnect()
      unsubscribe()
    }
  }, [renderer, pageCount])

  useEffect(() => {
    list.current
      ?.querySelector(`[data-thumbnail-page="${current}"]`)
      ?.scrollIntoView({ block: 'nearest', inline: 'nearest' })
  }, [current])

  return (
    <ol className="pdf-thumbnails" ref={list} data-testid="pdf-thumbnails">
      {Array.from({ length: pageCount }, (_, index) => {
        const page = index + 1
        return (
          <li key={page} data-thumbnail-page={page}>
            <button
              type="button"
              className="pdf-thumbnail"
              aria-label={t('pdf.thumbnail', { page })}
              aria-current={page === current ? 'page' : undefined}
              onClick={() => reader.goToPage(page)}
            >
              <span
                className="pdf-thumbnail-image"
                style={{ width: `${THUMBNAIL_WIDTH}px`, aspectRatio: `1 / ${aspect}` }}
              />
              <span className="pdf-thumbnail-number">{page}</span>
            </button>
          </li>
        )
      })}
    </ol>
  )
}

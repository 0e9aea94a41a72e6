import { lazy, Suspense } from 'react'
import type { DeckSlideThumbnail as EagerThumbnail } from './SlideThumbnail'
import type { PagesPackOffer as EagerOffer } from './PagesPackOffer'

/**
 * Review shows slide pictures and the pack offer from the documents feature, whose index every
 * first-screen module imports: exported eagerly, the slide renderer, the Office package reader and
 * pdf.js glue would ride in the first-screen script (spec 12: ≤ 350 KiB). They load with the first
 * picture Review shows.
 */
const Thumbnail = lazy(() => import('./SlideThumbnail').then((module) => ({ default: module.DeckSlideThumbnail })))
const Offer = lazy(() => import('./PagesPackOffer').then((module) => ({ default: module.PagesPackOffer })))

export function DeckSlideThumbnail(props: Parameters<typeof EagerThumbnail>[0]) {
  return (
    <Suspense fallback={null}>
      <Thumbnail {...props} />
    </Suspense>
  )
}

export function PagesPackOffer(props: Parameters<typeof EagerOffer>[0]) {
  return (
    <Suspense fallback={null}>
      <Offer {...props} />
    </Suspense>
  )
}

import { lazy } from 'react'

/** Review loads as its own chunk (diff layout, word diffs): the first screen never pays for it. */
export const ReviewPane = lazy(() => import('./ReviewPane'))
/** The diff renderer, for other features (a blocked restore's diff); also a lazy chunk. */
export const DiffView = lazy(() => import('./DiffView').then((m) => ({ default: m.DiffView })))
export { reviewTurn, reviewStoreFor } from './review-store'
export { navigateChange } from './change-navigation'
export type { LineAnchor } from './DiffView'
export { heldReasonText } from './held-reason'

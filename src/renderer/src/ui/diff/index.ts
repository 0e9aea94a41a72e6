import { lazy } from 'react'

/**
 * The one diff family (Review's file diffs, a blocked restore's conflict, an approval's proposed
 * change). The views load as their own chunk (word diffs, layout): the first screen never pays for
 * them; render them inside a Suspense boundary.
 */
export const DiffView = lazy(() => import('./DiffView').then((m) => ({ default: m.DiffView })))
export const PatchView = lazy(() => import('./PatchView').then((m) => ({ default: m.PatchView })))
export type { LineAnchor } from './DiffView'
export type { DiffHunk, DiffLine } from './diff-model'
export { navigateChange, CHANGE_NAVIGATION_EVENT } from './change-navigation'

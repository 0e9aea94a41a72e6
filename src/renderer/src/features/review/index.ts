import { lazy } from 'react'

/** Review loads as its own chunk (diff layout, word diffs): the first screen never pays for it. */
export const ReviewPane = lazy(() => import('./ReviewPane'))
export { reviewTurn } from './review-store'
/** F7 / Shift+F7 move through the diff on screen, which belongs to the shared diff family. */
export { navigateChange } from '../../ui/diff'
export { reviewCommands } from './commands'

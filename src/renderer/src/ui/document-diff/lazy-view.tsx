import { lazy, Suspense } from 'react'
import type { DocumentDiffView as EagerView } from './DocumentDiffView'

/**
 * Review and the approval card are on the first screen, but a document change is rare there: the
 * view (and its stylesheet) loads with the first document diff shown, keeping the first-screen
 * script inside spec 12's 350 KiB.
 */
const View = lazy(() => import('./DocumentDiffView').then((module) => ({ default: module.DocumentDiffView })))

export function DocumentDiffView(props: Parameters<typeof EagerView>[0]) {
  return (
    <Suspense fallback={null}>
      <View {...props} />
    </Suspense>
  )
}

import type { MountedDocument } from './adapters/types'
import type { BinaryAutosave } from './save/binary-autosave'
import type { DraftedPublisher } from './save/drafted-publisher'

/**
 * An editing adapter's instance that outlives its tab's view (spec 08 "rich editors live
 * independently of the tab view"): the element it rendered into, the instance with its native
 * undo stack, and its autosave. A tab switch detaches the element and keeps all three; coming back
 * re-attaches them. Only closing the tab releases it — after its last edits were published.
 */
export interface KeptDocument {
  readonly adapterId: string
  /** The element the adapter mounted into; moved between containers, never re-rendered. */
  readonly element: HTMLElement
  readonly mounted: MountedDocument
  autosave: BinaryAutosave | null
  publisher?: DraftedPublisher
  /** What the tab registered for the editor (its byte draft, the dirty dot), undone on release. */
  cleanup?: () => void
}

const kept = new Map<string, KeptDocument>()

export const keptKey = (projectId: string, path: string) => `${projectId}\u0000${path}`

export function keptDocument(key: string): KeptDocument | undefined {
  return kept.get(key)
}

export function keepDocument(key: string, document: KeptDocument): void {
  const previous = kept.get(key)
  if (previous && previous !== document) void releaseKept(previous)
  kept.set(key, document)
}

/**
 * Drops the record of a kept instance that could not be hidden (`MountedDocument.hide` said no):
 * its host releases it like any other view, then runs the record's `cleanup` (the byte editor's
 * registration and the dirty dot), which the view that re-attached it does not hold.
 */
export function forgetKept(key: string, mounted: MountedDocument): KeptDocument | undefined {
  const record = kept.get(key)
  if (record?.mounted !== mounted) return undefined
  kept.delete(key)
  return record
}

async function releaseKept(document: KeptDocument): Promise<boolean> {
  const published = document.autosave ? await document.autosave.flush() : true
  if (!published) return false
  document.autosave?.dispose()
  document.cleanup?.()
  document.mounted.destroy()
  document.element.remove()
  return true
}

/**
 * A closed tab: its last edits are exported and published first, then the instance is released.
 * When publishing fails the instance, its edits and its retryable error stay, so reopening the
 * file shows them (spec 08: "on failure the editor and draft stay").
 */
export async function releaseDocument(projectId: string, path: string): Promise<boolean> {
  const key = keptKey(projectId, path)
  const document = kept.get(key)
  if (!document) return true
  const released = await releaseKept(document)
  if (released && kept.get(key) === document) kept.delete(key)
  return released
}

/**
 * Releases the kept documents of a project whose files are no longer open in a tab; the workbench
 * calls it with the open paths whenever the tabs change.
 */
export function releaseClosedDocuments(projectId: string, openPaths: ReadonlySet<string>): void {
  const prefix = keptKey(projectId, '')
  for (const key of [...kept.keys()]) {
    if (key.startsWith(prefix) && !openPaths.has(key.slice(prefix.length))) {
      void releaseDocument(projectId, key.slice(prefix.length))
    }
  }
}

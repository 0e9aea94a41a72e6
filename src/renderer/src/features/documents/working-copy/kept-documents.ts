import type { DocumentContent, MountedDocument } from '../adapters/types'

/**
 * An editing adapter's instance that outlives its tab's view (spec 08 "rich editors live
 * independently of the tab view"): the element it rendered into and the instance with its native
 * undo stack. A tab switch hides the element and keeps both; coming back shows them again. Only
 * closing the tab releases it — after its working copy published its last edits.
 */
export interface KeptDocument {
  readonly adapterId: string
  /** The element the adapter mounted into; moved between containers, never re-rendered. */
  readonly element: HTMLElement
  readonly mounted: MountedDocument
  /**
   * Nodes the view put outside its element while it was shown — a React portal into the body, such
   * as the DOCX editor's off-screen input surface. They are hidden and shown with it.
   */
  readonly escaped: Set<Element>
  /**
   * The content (and revision) the instance was last given. A view coming back hands it only
   * content it has not seen: the view it comes back with may be the one it left, and older than
   * what the editor has published since — given again, the editor would take it for an outside
   * change and reload it over its own undo stack.
   */
  delivered: { content: DocumentContent; revision: string }
}

/** What a tab host needs to keep one path's instance across views. */
export interface KeptSlot {
  get(): KeptDocument | undefined
  keep(document: KeptDocument): void
  /** Drops the record of an instance that could not be hidden; true when it was this slot's. */
  forget(mounted: MountedDocument): boolean
}

/**
 * A hidden tab's editor is inert: whatever the adapter, it can never take the focus, keys or input
 * (Tab from the chat composer once walked into a hidden DOCX editor's input surface and typed into
 * it). This is the tab host's job, not each adapter's: the element leaves the page, and it and
 * everything the view put elsewhere in the page are `inert` and hidden from assistive technology
 * until the tab is shown again.
 */
export function hideKept(document: KeptDocument): void {
  for (const node of [document.element, ...document.escaped]) {
    if (node !== document.element && !node.isConnected) {
      document.escaped.delete(node)
      continue
    }
    node.setAttribute('inert', '')
    node.setAttribute('aria-hidden', 'true')
    node.setAttribute('data-kept-hidden', 'true')
  }
  // A focus left inside (a shortcut switched tabs from within the editor) leaves with it.
  const active = globalThis.document.activeElement
  if (active instanceof HTMLElement && [...document.escaped].some((node) => node.contains(active))) active.blur()
  document.element.remove()
}

/** The tab is shown again: its element goes into `host` and takes input again. */
export function showKept(document: KeptDocument, host: HTMLElement): void {
  host.append(document.element)
  for (const node of [document.element, ...document.escaped]) {
    node.removeAttribute('inert')
    node.removeAttribute('aria-hidden')
    node.removeAttribute('data-kept-hidden')
  }
}

/**
 * Collects what a shown view adds to the body outside the app's own root, until stopped. Only one
 * document view is shown in the centre at a time, and the workbench itself never renders into the
 * body directly, so a node that appears there meanwhile is that view's.
 */
export function watchEscapes(into: Set<Element>): () => void {
  const appRoot = globalThis.document.getElementById('root')
  const observer = new MutationObserver((records) => {
    for (const record of records)
      for (const node of record.addedNodes) if (node instanceof Element && node !== appRoot) into.add(node)
  })
  observer.observe(globalThis.document.body, { childList: true })
  return () => {
    for (const record of observer.takeRecords())
      for (const node of record.addedNodes) if (node instanceof Element && node !== appRoot) into.add(node)
    observer.disconnect()
  }
}

/** A project's kept instances, by path (owned by its `WorkingCopyService`). */
export class KeptDocuments {
  private readonly kept = new Map<string, KeptDocument>()

  constructor(private readonly release: (path: string, document: KeptDocument) => void) {}

  slot(path: string): KeptSlot {
    return {
      get: () => this.kept.get(path),
      keep: (document) => {
        const previous = this.kept.get(path)
        this.kept.set(path, document)
        if (previous && previous !== document) this.release(path, previous)
      },
      forget: (mounted) => {
        if (this.kept.get(path)?.mounted !== mounted) return false
        this.kept.delete(path)
        return true
      },
    }
  }

  get(path: string): KeptDocument | undefined {
    return this.kept.get(path)
  }

  /** Removes the record if it is still `document` (a newer view may have replaced it). */
  delete(path: string, document: KeptDocument): void {
    if (this.kept.get(path) === document) this.kept.delete(path)
  }

  paths(): string[] {
    return [...this.kept.keys()]
  }
}

/** Destroys a kept instance that is no longer needed (its working copy already published). */
export function destroyKept(document: KeptDocument): void {
  document.mounted.destroy()
  document.element.remove()
  document.escaped.clear()
}

import { documentViewRequests } from '../../ui/document-requests'

/** The part of the centre's tab model opening a match needs (the workbench's TabsModel has it). */
export interface MatchTabs {
  openFile(path: string, options?: { pinned?: boolean }): void
  readonly state: { readonly activeId: string | null }
  saveViewState(id: string, viewState: unknown): void
}

export interface MatchTarget {
  readonly path: string
  readonly line: number
  readonly column: number
  /** Length of the match in UTF-16 code units (selected in the editor). */
  readonly length: number
}

/** Lines shown above the match when the file opens, so it is read in its context. */
const LINES_ABOVE = 5

/**
 * Opens the file and places the text editor at the match: the match is selected and scrolled into
 * view. It works through the tab's saved view state, which a file tab restores when its editor
 * mounts — the shape is Monaco's `ICodeEditorViewState` (the text, Markdown and CSV views restore
 * it; the others ignore a state they do not recognise). A tab already on screen is asked to move
 * through `documentViewRequests` (ui/): search may not import the documents feature.
 */
export function openMatch(tabs: MatchTabs, projectId: string, match: MatchTarget, pinned = false): void {
  tabs.openFile(match.path, { pinned })
  const id = tabs.state.activeId
  if (id === null) return
  const start = { lineNumber: match.line, column: match.column }
  const viewState = {
    // Read by views that must change mode to show a line (Markdown's preview); Monaco ignores it.
    reveal: true,
    cursorState: [
      { inSelectionMode: false, selectionStart: start, position: { ...start, column: match.column + match.length } },
    ],
    viewState: {
      scrollLeft: 0,
      firstPosition: { lineNumber: Math.max(1, match.line - LINES_ABOVE), column: 1 },
      firstPositionDeltaTop: 0,
    },
    contributionsState: {},
  }
  tabs.saveViewState(id, viewState)
  // The file's editor already on screen moves now; one that mounts restores the saved state.
  documentViewRequests.emit({ projectId, path: match.path, viewState })
}

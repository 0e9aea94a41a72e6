import type { Pdfjs } from './pdfjs'
import type { Tool } from './reader-state'

type EditorTypes = Pdfjs['lib']['AnnotationEditorType']

/** pdf.js's annotation editor mode that a reader tool turns on. */
export function modeOfTool(tool: Tool, types: EditorTypes): number {
  return tool === 'highlight' ? types.HIGHLIGHT : tool === 'freetext' ? types.FREETEXT : types.NONE
}

/** The reader tool an editor mode is (any other mode is no tool). */
export function toolOfMode(mode: number, types: EditorTypes): Tool {
  return mode === types.HIGHLIGHT ? 'highlight' : mode === types.FREETEXT ? 'freetext' : 'none'
}

/** The parts of pdf.js's annotation editor manager (6.3) the reader drives. */
export interface EditorUiManager {
  endCurrentEditing?: () => void
  getMode?: () => number
  addEditListeners?: () => void
  removeEditListeners?: () => void
  setEditingState?: (editing: boolean) => void
}

const GLOBAL_EDITOR_HANDLERS = ['keydown', 'keyup', 'copy', 'cut', 'paste'] as const

/**
 * pdf.js's editor manager is built for a viewer that owns the whole page, and this one shares it
 * with the chat and the explorer:
 * - While a tool is on it listens on the whole window: its shortcuts (Backspace deletes the
 *   selected annotations, Ctrl+A selects them all, Ctrl+Z undoes) and its copy/cut/paste handlers,
 *   which cancel the default action everywhere — typing Backspace or pasting into the composer was
 *   swallowed and deleted a highlight. Those handlers are wrapped to act only on this reader's
 *   events, then re-registered (pdf.js binds them when it adds its listeners, which
 *   `removeEditListeners`/`addEditListeners` redo).
 * - It turns a picture dropped or pasted anywhere on the page into a stamp on the current page,
 *   whatever the tool — even in a reader kept in a hidden tab. Its editor types are narrowed to the
 *   reader's own tools before pdf.js registers them (it keeps the first list it is given).
 */
export function confineEditor(
  uiManager: EditorUiManager,
  scope: { owns: (target: EventTarget | null) => boolean; tools: readonly number[] },
): void {
  const manager = uiManager as unknown as Record<string, unknown>
  const prototype = Object.getPrototypeOf(uiManager) as Record<string, unknown>
  for (const name of GLOBAL_EDITOR_HANDLERS) {
    const original = prototype[name]
    if (typeof original !== 'function') continue
    manager[name] = (event: Event) =>
      scope.owns(event.target) ? (original as (event: Event) => unknown).call(uiManager, event) : undefined
  }
  const register = prototype.registerEditorTypes
  if (typeof register === 'function') {
    manager.registerEditorTypes = (types: ReadonlyArray<{ _editorType?: number }>) =>
      (register as (types: unknown[]) => unknown).call(
        uiManager,
        types.filter((type) => type._editorType !== undefined && scope.tools.includes(type._editorType)),
      )
  }
  if (!uiManager.removeEditListeners || !uiManager.addEditListeners) return
  const mode = uiManager.getMode?.()
  uiManager.removeEditListeners()
  uiManager.addEditListeners()
  // `addEditListeners` also turns editing on; with no tool on (mode 0) pdf.js keeps it off.
  if (mode === 0) uiManager.setEditingState?.(false)
}

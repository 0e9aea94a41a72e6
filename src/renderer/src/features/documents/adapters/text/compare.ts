import { monaco } from './monaco'

/**
 * A side-by-side text comparison (Monaco's diff editor computes the diff from both full texts):
 * the conflict banner's "Compare" and History's "Compare with current". Read-only on both sides.
 */
export function mountCompare(
  container: HTMLElement,
  texts: { original: string; modified: string; path: string; dark: boolean },
): { destroy(): void } {
  const original = monaco.editor.createModel(texts.original, undefined)
  const modified = monaco.editor.createModel(texts.modified, undefined)
  const editor = monaco.editor.createDiffEditor(container, {
    readOnly: true,
    originalEditable: false,
    automaticLayout: true,
    renderSideBySide: true,
    useInlineViewWhenSpaceIsLimited: true,
    renderSideBySideInlineBreakpoint: 640,
    minimap: { enabled: false },
    theme: texts.dark ? 'vs-dark' : 'vs',
    fontSize: 13,
    ariaLabel: texts.path,
  })
  editor.setModel({ original, modified })
  return {
    destroy() {
      editor.dispose()
      original.dispose()
      modified.dispose()
    },
  }
}

import { createEmitter, type DocumentAdapter, type DocumentContent, type MountedDocument } from '../types'
import { monaco } from './monaco'

const textOf = (content: DocumentContent) =>
  content.kind === 'text' ? content.text : new TextDecoder().decode(content.bytes)

/** Monaco, read-only until the drafts issue brings editing and autosave (spec 08). */
export const textAdapter: DocumentAdapter = {
  async mount(container, options): Promise<MountedDocument> {
    const events = createEmitter()
    const model = monaco.editor.createModel(textOf(options.content), languageFor(options.path))
    const editor = monaco.editor.create(container, {
      model,
      readOnly: options.readOnly,
      domReadOnly: options.readOnly,
      automaticLayout: true,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      theme: options.dark ? 'vs-dark' : 'vs',
      unicodeHighlight: { ambiguousCharacters: false },
      fontSize: 13,
      lineNumbersMinChars: 4,
      ariaLabel: options.path,
    })
    if (options.viewState) editor.restoreViewState(options.viewState as monaco.editor.ICodeEditorViewState)
    let revision = options.revision
    model.onDidChangeContent(() => events.emit('changed', { revision }))
    return {
      on: events.on,
      update(content, nextRevision) {
        revision = nextRevision
        const text = textOf(content)
        if (text === model.getValue()) return
        const view = editor.saveViewState()
        model.setValue(text)
        if (view) editor.restoreViewState(view)
      },
      viewState: () => editor.saveViewState(),
      setDark: (dark) => monaco.editor.setTheme(dark ? 'vs-dark' : 'vs'),
      export: async () => new Blob([model.getValue()], { type: 'text/plain;charset=utf-8' }),
      destroy() {
        editor.dispose()
        model.dispose()
      },
    }
  },
}

function languageFor(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase()
  for (const language of monaco.languages.getLanguages()) {
    if (language.filenames?.some((f) => f.toLowerCase() === name)) return language.id
    if (language.extensions?.some((ext) => name.endsWith(ext.toLowerCase()))) return language.id
  }
  return undefined
}

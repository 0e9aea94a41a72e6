import { createEmitter, type DocumentAdapter, type DocumentContent, type MountedDocument } from '../types'
import { monaco } from './monaco'

const textOf = (content: DocumentContent) =>
  content.kind === 'text' ? content.text : new TextDecoder().decode(content.bytes)

/** Monaco: source editing (autosave and drafts live in the file tab, spec 08) or read-only views. */
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
    // Content set from outside (a clean file changed on disk) is not the person's edit.
    let applying = false
    model.onDidChangeContent(() => {
      if (!applying) events.emit('changed', { revision })
    })
    return {
      on: events.on,
      update(content, nextRevision) {
        revision = nextRevision
        const text = textOf(content)
        if (text === model.getValue()) return
        const view = editor.saveViewState()
        applying = true
        try {
          model.setValue(text)
        } finally {
          applying = false
        }
        if (view) editor.restoreViewState(view)
      },
      currentText: () => model.getValue(),
      setReadOnly: (readOnly) => editor.updateOptions({ readOnly, domReadOnly: readOnly }),
      viewState: () => editor.saveViewState(),
      restoreViewState(view) {
        editor.restoreViewState(view as monaco.editor.ICodeEditorViewState)
        editor.focus()
      },
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

import { useEffect, useRef } from 'react'
import { monaco } from './monaco'

/** Read-only Monaco view of one text file (editing and autosave arrive with spec 08's save path). */
export default function TextView(props: { path: string; text: string }) {
  const container = useRef<HTMLDivElement>(null)

  useEffect(() => {
    const element = container.current
    if (!element) return
    const dark = window.matchMedia('(prefers-color-scheme: dark)')
    const model = monaco.editor.createModel(props.text, languageFor(props.path))
    const editor = monaco.editor.create(element, {
      model,
      readOnly: true,
      domReadOnly: true,
      automaticLayout: true,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      theme: dark.matches ? 'vs-dark' : 'vs',
      unicodeHighlight: { ambiguousCharacters: false },
    })
    const onScheme = () => monaco.editor.setTheme(dark.matches ? 'vs-dark' : 'vs')
    dark.addEventListener('change', onScheme)
    return () => {
      dark.removeEventListener('change', onScheme)
      editor.dispose()
      model.dispose()
    }
  }, [props.path, props.text])

  return <div ref={container} className="text-view" data-testid="text-view" />
}

function languageFor(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase()
  for (const language of monaco.languages.getLanguages()) {
    if (language.filenames?.some((f) => f.toLowerCase() === name)) return language.id
    if (language.extensions?.some((ext) => name.endsWith(ext.toLowerCase()))) return language.id
  }
  return undefined
}

import * as monaco from 'monaco-editor/editor/editor.api'
import 'monaco-editor/basic-languages/monaco.contribution'
import EditorWorker from 'monaco-editor/editor/editor.worker?worker'

// Workers are same-origin module scripts built by Vite, so they load under `worker-src 'self'`.
self.MonacoEnvironment = {
  getWorker: () => new EditorWorker(),
}

export { monaco }

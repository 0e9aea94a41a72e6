import { createEmitter, type DocumentAdapter, type DocumentContent, type MountedDocument } from '../types'

/** Pages drawn eagerly in a tab; the PDF reader issue replaces this with the full viewer. */
const MAX_PAGES = 20

async function pdfjs() {
  const lib = await import('pdfjs-dist/legacy/build/pdf.mjs')
  if (!lib.GlobalWorkerOptions.workerPort) {
    lib.GlobalWorkerOptions.workerPort = new Worker(
      new URL('pdfjs-dist/legacy/build/pdf.worker.min.mjs', import.meta.url),
      { type: 'module' },
    )
  }
  return lib
}

/**
 * A read-only PDF view with pdf.js (legacy build, scripting off, no external loading): only
 * pixels reach the DOM. `compact` draws the first page small (Review's before/after).
 */
export const pdfAdapter: DocumentAdapter = {
  async mount(container, options): Promise<MountedDocument> {
    const events = createEmitter()
    const lib = await pdfjs()
    const root = document.createElement('div')
    root.className = `pdf-view pdf-view-${options.size}`
    container.append(root)
    let bytes = options.content.kind === 'bytes' ? options.content.bytes : new Uint8Array()
    let destroyTask: (() => void) | undefined
    let generation = 0

    const render = async (content: Uint8Array) => {
      const mine = ++generation
      destroyTask?.()
      // getDocument detaches the buffer it is given: hand it a copy.
      const task = lib.getDocument({ data: content.slice(), enableXfa: false })
      destroyTask = () => void task.destroy()
      try {
        const pdf = await task.promise
        if (mine !== generation) return
        root.replaceChildren()
        const pages = options.size === 'compact' ? 1 : Math.min(pdf.numPages, MAX_PAGES)
        const width = Math.max(200, (container.clientWidth || 640) - 32)
        for (let index = 1; index <= pages; index++) {
          const page = await pdf.getPage(index)
          if (mine !== generation) return
          const base = page.getViewport({ scale: 1 })
          const scale = options.size === 'compact' ? Math.min(2, 320 / base.width) : Math.min(2, width / base.width)
          const viewport = page.getViewport({ scale })
          const canvas = document.createElement('canvas')
          canvas.width = Math.ceil(viewport.width)
          canvas.height = Math.ceil(viewport.height)
          canvas.setAttribute('role', 'img')
          canvas.setAttribute('aria-label', `${options.path} — ${index} / ${pdf.numPages}`)
          canvas.dataset.testid = 'pdf-page'
          root.append(canvas)
          await page.render({ canvas, viewport }).promise
          canvas.dataset.rendered = 'true'
        }
        if (pdf.numPages > pages && options.size === 'full') {
          const note = document.createElement('p')
          note.className = 'viewer-note'
          note.textContent = `${pages} / ${pdf.numPages}`
          root.append(note)
        }
      } catch (error) {
        if (mine === generation) events.emit('error', { message: String(error) })
      }
    }
    void render(bytes)
    return {
      on: events.on,
      update(content: DocumentContent) {
        if (content.kind !== 'bytes') return
        bytes = content.bytes
        void render(bytes)
      },
      viewState: () => ({ scrollTop: container.scrollTop }),
      setDark: () => {},
      export: async () => new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/pdf' }),
      destroy() {
        generation++
        destroyTask?.()
        root.remove()
      },
    }
  },
}

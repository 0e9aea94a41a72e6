import { createEmitter, type DocumentAdapter, type DocumentContent, type MountedDocument } from '../types'

const blobOf = (content: DocumentContent, fallbackMime: string) =>
  content.kind === 'bytes'
    ? new Blob([content.bytes as Uint8Array<ArrayBuffer>], { type: content.mime })
    : new Blob([content.text], { type: fallbackMime })

/**
 * Images as an <img> from a blob URL (allowed by the CSP's `img-src blob:`). SVG goes through the
 * same path, so its scripts and links never run (spec 11).
 */
export const imageAdapter: DocumentAdapter = {
  async mount(container, options): Promise<MountedDocument> {
    const events = createEmitter()
    const mime = options.content.kind === 'bytes' ? options.content.mime : 'image/svg+xml'
    const figure = document.createElement('div')
    figure.className = `image-view image-view-${options.size}`
    const image = document.createElement('img')
    image.alt = options.path
    image.dataset.testid = 'image-view'
    figure.append(image)
    container.append(figure)
    let url = ''
    let blob = blobOf(options.content, mime)
    const show = () => {
      if (url) URL.revokeObjectURL(url)
      url = URL.createObjectURL(blob)
      image.src = url
    }
    image.onerror = () => events.emit('error', { message: 'decode' })
    image.onload = () => {
      image.dataset.rendered = 'true'
    }
    show()
    return {
      on: events.on,
      update(content) {
        blob = blobOf(content, mime)
        show()
      },
      viewState: () => ({ scrollTop: figure.scrollTop }),
      setDark: () => {},
      export: async () => blob,
      destroy() {
        URL.revokeObjectURL(url)
        figure.remove()
      },
    }
  },
}

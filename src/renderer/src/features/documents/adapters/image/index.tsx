import type { DocumentAdapter, MountedDocument } from '../types'
import { bytesOf, mountReactView } from './common'
import { ImagePreview } from './Preview'
import './image.css'

/**
 * Preview-only images (GIF, BMP, ICO, AVIF, SVG, and bitmaps the editor declines): an `<img>` from
 * a blob URL, never rasterised into the file (spec 09 "never silently rasterise").
 */
export const imageAdapter: DocumentAdapter = {
  async mount(container, options): Promise<MountedDocument> {
    return mountReactView(container, options, 'image-adapter', (content) => (
      <ImagePreview
        bytes={bytesOf(content)}
        mime={content.kind === 'bytes' ? content.mime : 'image/svg+xml'}
        path={options.path}
        compact={options.size === 'compact'}
        createCopy={options.createCopy}
        openFile={options.openFile}
      />
    ))
  },
}

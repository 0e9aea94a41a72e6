import { useState, type ReactNode } from 'react'
import { createRoot } from 'react-dom/client'
import { I18nContext, translator, useI18n, type Locale } from '../../../../i18n'
import { ErrorLine } from '../../../../ui/ErrorLine'
import {
  createEmitter,
  type CopyOutcome,
  type DocumentContent,
  type MountOptions,
  type MountedDocument,
} from '../types'

export const bytesOf = (content: DocumentContent): Uint8Array =>
  content.kind === 'bytes' ? content.bytes : new TextEncoder().encode(content.text)

export const blobOf = (bytes: Uint8Array, mime: string) => new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mime })

/** A `data:` URL's bytes, decoded here (`fetch` of a data: URL is outside the CSP's connect-src). */
export function dataUrlBytes(url: string): Uint8Array {
  const binary = atob(url.slice(url.indexOf(',') + 1))
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

export async function canvasPng(canvas: HTMLCanvasElement | OffscreenCanvas): Promise<Uint8Array> {
  const blob =
    canvas instanceof HTMLCanvasElement
      ? await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'))
      : await canvas.convertToBlob({ type: 'image/png' })
  if (!blob) throw new Error('the canvas could not be encoded')
  return new Uint8Array(await blob.arrayBuffer())
}

/** An image (any format the browser decodes) drawn at its natural size and encoded as PNG. */
export async function imagePng(image: HTMLImageElement): Promise<Uint8Array> {
  await image.decode()
  const canvas = document.createElement('canvas')
  canvas.width = image.naturalWidth
  canvas.height = image.naturalHeight
  canvas.getContext('2d')?.drawImage(image, 0, 0)
  return canvasPng(canvas)
}

/**
 * "Convert to PNG": a new file next to the original (the host picks `name.png`, or the first free
 * `name (n).png`), never the original replaced. Shown only when the host allows copies.
 */
export function ConvertToPng(props: {
  toPng: () => Promise<Uint8Array>
  createCopy: MountOptions['createCopy']
  openFile: MountOptions['openFile']
}) {
  const { t } = useI18n()
  const [state, setState] = useState<{ kind: 'idle' } | { kind: 'busy' } | CopyOutcome>({ kind: 'idle' })
  const { createCopy, openFile } = props
  if (!createCopy) return null
  return (
    <span className="image-convert">
      <button
        type="button"
        className="image-tool"
        disabled={state.kind === 'busy'}
        onClick={async () => {
          setState({ kind: 'busy' })
          try {
            setState(await createCopy(await props.toPng(), 'png'))
          } catch (error) {
            setState({ kind: 'failed', message: error instanceof Error ? error.message : String(error) })
          }
        }}
      >
        {state.kind === 'busy' ? t('image.converting') : t('image.convert')}
      </button>
      {state.kind === 'created' && (
        <span role="status" className="image-convert-result">
          {t('image.converted', { path: state.path })}{' '}
          {openFile && (
            <button type="button" className="link-button" onClick={() => openFile(state.path)}>
              {t('image.openConverted', { path: state.path })}
            </button>
          )}
        </span>
      )}
      {state.kind === 'failed' && (
        <ErrorLine
          inline
          className="image-convert-result image-error"
          message={t('image.convertFailed', { message: state.message })}
        />
      )}
    </span>
  )
}

/**
 * Mounts a React view as an adapter instance: the language follows the app's, dark mode sets a
 * data attribute, content updates re-render. For the read-only adapters of this folder.
 */
export function mountReactView(
  container: HTMLElement,
  options: MountOptions,
  className: string,
  view: (content: DocumentContent, revision: string) => ReactNode,
  extra: Partial<Pick<MountedDocument, 'export' | 'viewState'>> = {},
): MountedDocument {
  const events = createEmitter()
  const root = document.createElement('div')
  root.className = `${className} ${className}-${options.size}`
  container.append(root)
  let locale: Locale = options.locale ?? 'en'
  let content = options.content
  let revision = options.revision
  const react = createRoot(root)
  const render = () =>
    react.render(
      <I18nContext.Provider value={{ locale, t: translator(locale), setLocale: () => {} }}>
        {view(content, revision)}
      </I18nContext.Provider>,
    )
  render()
  return {
    on: events.on,
    update(next, nextRevision) {
      content = next
      revision = nextRevision
      render()
    },
    viewState: extra.viewState ?? (() => undefined),
    setDark(dark) {
      root.dataset.theme = dark ? 'dark' : 'light'
    },
    setLocale(next) {
      locale = next
      render()
    },
    export:
      extra.export ?? (async () => blobOf(bytesOf(content), content.kind === 'bytes' ? content.mime : 'text/plain')),
    destroy() {
      react.unmount()
      root.remove()
    },
  }
}

import { useEffect, useRef, useState, useSyncExternalStore } from 'react'
import { createRoot } from 'react-dom/client'
import ImageEditor from 'tui-image-editor'
import { I18nContext, translator, useI18n, type Locale } from '../../../../i18n'
import { ErrorLine } from '../../../../ui/ErrorLine'
import { createEmitter, type DocumentAdapter, type MountedDocument } from '../types'
import { blobOf, bytesOf, dataUrlBytes } from './common'
import { editVerdict, imageInfo, isLosslessWebp } from './image-info'
import { carryExif } from './jpeg-metadata'
import { ImagePreview } from './Preview'
import { FIT, useZoomInput, ZoomControls, type ImageZoom } from './zoom'
import './image.css'

/**
 * Quality of the re-encoded file when an edited JPEG or WebP is exported. 0.92 is Chromium's own
 * default for `toDataURL('image/jpeg')`: visually lossless for photographs at a size close to the
 * original's, where 1.0 doubles the file and 0.8 shows ringing around drawn text and shapes.
 * PNG is lossless. Nothing is re-encoded until the person edits (an untouched file is exported as
 * its original bytes, and undoing every edit goes back to them).
 */
export const EXPORT_QUALITY = 0.92

type Tool = 'none' | 'crop' | 'draw' | 'text'

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()))

/** The editor's undoable state for the toolbar, kept outside React so the instance can outlive it. */
class EditorState {
  private listeners = new Set<() => void>()
  snapshot = { canUndo: false, canRedo: false, tool: 'none' as Tool, width: 0, height: 0, ready: false, error: '' }
  set(patch: Partial<EditorState['snapshot']>) {
    this.snapshot = { ...this.snapshot, ...patch }
    for (const listener of this.listeners) listener()
  }
  subscribe = (listener: () => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
  get = () => this.snapshot
}

/**
 * PNG, JPEG and WebP edited in place with TOAST UI Image Editor (its canvas API only: the toolbar
 * is ours, so every tool has an accessible name and nothing loads from elsewhere; usage
 * statistics are off). Crop, rotate, flip, free drawing, shapes, text and the editor's own
 * undo/redo; `export()` encodes the canvas in the file's own format at full resolution. Past the
 * limits (or animated, or 16-bit) the same adapter only previews, and says why.
 */
export const bitmapAdapter: DocumentAdapter = {
  async mount(container, options): Promise<MountedDocument> {
    const events = createEmitter()
    const original = bytesOf(options.content)
    const mime = options.content.kind === 'bytes' ? options.content.mime : 'image/png'
    const verdict = editVerdict(imageInfo(original, options.path), original.length)
    const root = document.createElement('div')
    root.className = `image-adapter image-adapter-${options.size}`
    container.append(root)
    let locale: Locale = options.locale ?? 'en'
    let shown = original
    /** What `export()` returns while nothing is edited: the bytes last loaded into the editor. */
    let baseline = original
    let exported: Uint8Array | null = null
    let loading = false
    /** The revision last handed in (mounted or updated): what a `changed` event refers to. */
    let revision = options.revision
    const react = createRoot(root)
    const editable = verdict.kind === 'editable' && !options.readOnly && options.size === 'full'
    const state = new EditorState()
    let editor: ImageEditor | null = null
    let url = ''

    const render = () =>
      react.render(
        <I18nContext.Provider value={{ locale, t: translator(locale), setLocale: () => {} }}>
          {editable ? (
            <EditorView state={state} path={options.path} onCanvas={attach} run={run} applyZoom={applyZoom} />
          ) : (
            <ImagePreview
              bytes={shown}
              mime={mime}
              path={options.path}
              compact={options.size === 'compact'}
              verdict={verdict}
              createCopy={options.createCopy}
              openFile={options.openFile}
            />
          )}
        </I18nContext.Provider>,
      )

    // The editor is created once, on the first canvas host React gives us; it then lives as long
    // as this instance (a tab switch moves the whole element, never recreates it).
    function attach(host: HTMLDivElement | null) {
      if (!host || editor) return
      const box = host.getBoundingClientRect()
      editor = new ImageEditor(host, {
        cssMaxWidth: Math.max(200, Math.floor(box.width) - 16),
        cssMaxHeight: Math.max(200, Math.floor(box.height) - 16),
        usageStatistics: false,
        selectionStyle: { cornerSize: 12, rotatingPointOffset: 40 },
      })
      const current = editor
      // The editor listens for Ctrl+Z/Y, Ctrl+V and Delete on the whole document: a kept editor in
      // a hidden tab would undo while the person types elsewhere. Its handler moves to the canvas.
      const keydown = (current as unknown as { _handlers?: { keydown?: (event: KeyboardEvent) => void } })._handlers
        ?.keydown
      if (keydown) {
        document.removeEventListener('keydown', keydown)
        host.addEventListener('keydown', keydown)
      }
      url = URL.createObjectURL(blobOf(original, mime))
      void current
        .loadImageFromURL(url, options.path)
        .then((size) => {
          // Loading is not an edit: the history starts empty.
          current.clearUndoStack()
          current.clearRedoStack()
          state.set({ ready: true, width: size.newWidth, height: size.newHeight })
          const sync = () => {
            // Loading other bytes (a restore) resets the history: not an edit to publish.
            if (loading) return
            state.set({
              canUndo: !current.isEmptyUndoStack(),
              canRedo: !current.isEmptyRedoStack(),
              ...imageSize(current),
            })
            events.emit('changed', { revision })
          }
          current.on('undoStackChanged', sync)
          current.on('redoStackChanged', sync)
        })
        .catch((error: unknown) => {
          const message = error instanceof Error ? error.message : String(error)
          state.set({ error: message })
          events.emit('error', { message })
        })
    }

    /**
     * The size the file will have: the canvas's backing store, which the editor sizes to the image
     * as shown (rotated) and exports from. `getCanvasSize()` is the unrotated image's.
     */
    function imageSize(current: ImageEditor): { width: number; height: number } {
      const canvas = root.querySelector('canvas.lower-canvas')
      if (canvas instanceof HTMLCanvasElement && canvas.width > 0) return { width: canvas.width, height: canvas.height }
      const image = current.getCanvasSize()
      return { width: image.width, height: image.height }
    }

    /**
     * Shows the canvas fitted (the editor's own sizing) or at a scale of the image's pixels. Only
     * the canvas's CSS size changes: the pixels, the history and what is exported do not, and the
     * editor maps the pointer through the CSS size, so the tools work at any zoom. Returns the
     * scale on screen (for a fit, what the fit came to), or null before the image is loaded.
     */
    function applyZoom(zoom: ImageZoom): number | null {
      const current = (editor as unknown as { _graphics?: CanvasSizing } | null)?._graphics
      const canvas = root.querySelector('canvas.lower-canvas')
      if (!current || !state.get().ready || !(canvas instanceof HTMLCanvasElement) || canvas.width === 0) return null
      if (zoom.kind === 'fit') {
        current.adjustCanvasDimension()
      } else {
        current.setCanvasCssDimension({
          width: `${canvas.width * zoom.scale}px`,
          height: `${canvas.height * zoom.scale}px`,
          'max-width': 'none',
          'max-height': 'none',
        })
      }
      return canvas.getBoundingClientRect().width / canvas.width
    }

    async function run(action: Action) {
      const current = editor
      if (!current || !state.get().ready) return
      await perform(current, action)
      // The stack-changed event fires before a rotation (or its undo) resizes the canvas: the size
      // shown is read again once the action has finished.
      if (editor === current) state.set(imageSize(current))
    }

    async function perform(current: ImageEditor, action: Action) {
      const { width, height } = current.getCanvasSize()
      const stroke = Math.max(2, Math.round(Math.min(width, height) / 100))
      const leave = () => {
        if (state.get().tool !== 'none') current.stopDrawingMode()
        state.set({ tool: 'none' })
      }
      switch (action.kind) {
        case 'crop':
          if (state.get().tool === 'crop') return leave()
          leave()
          current.startDrawingMode('CROPPER')
          state.set({ tool: 'crop' })
          return
        case 'crop-square':
          current.setCropzoneRect(1)
          return
        case 'crop-apply': {
          const rect = current.getCropzoneRect()
          if (rect && rect.width >= 1 && rect.height >= 1) await current.crop(rect)
          return leave()
        }
        case 'rotate':
          leave()
          await current.rotate(action.angle)
          return
        case 'flip-x':
          leave()
          await current.flipX()
          return
        case 'flip-y':
          leave()
          await current.flipY()
          return
        case 'draw':
          if (state.get().tool === 'draw') return leave()
          leave()
          current.startDrawingMode('FREE_DRAWING', { width: stroke, color: '#e11d48' })
          state.set({ tool: 'draw' })
          return
        case 'shape':
          leave()
          await current.addShape('rect', {
            fill: 'transparent',
            stroke: '#e11d48',
            strokeWidth: stroke,
            width: Math.round(width / 3),
            height: Math.round(height / 3),
            left: Math.round(width / 2),
            top: Math.round(height / 2),
          })
          return
        case 'text-tool':
          if (state.get().tool === 'text') return leave()
          leave()
          state.set({ tool: 'text' })
          return
        case 'text':
          leave()
          if (!action.text.trim()) return
          await current.addText(action.text, {
            position: { x: Math.round(width / 2), y: Math.round(height / 2) },
            styles: {
              fill: '#e11d48',
              fontSize: Math.max(16, Math.round(Math.min(width, height) / 8)),
              fontWeight: 'bold',
            },
          })
          current.deactivateAll()
          return
        case 'cancel':
          return leave()
        case 'undo':
          leave()
          if (!current.isEmptyUndoStack()) await current.undo()
          return
        case 'redo':
          leave()
          if (!current.isEmptyRedoStack()) await current.redo()
          return
      }
    }

    render()
    return {
      on: events.on,
      /**
       * Other bytes on disk while nothing is unpublished (an outside edit, a History restore):
       * shown fresh, with a fresh history. Bytes this editor published itself never come back here.
       */
      update(content, nextRevision) {
        revision = nextRevision
        const bytes = bytesOf(content)
        const same = (other: Uint8Array | null) =>
          other !== null && other.length === bytes.length && other.every((b, i) => b === bytes[i])
        if (!editor) {
          if (same(shown)) return
          shown = bytes
          return render()
        }
        // What the editor holds now — the bytes it last exported (its own publish coming back),
        // or, with nothing to undo, those it loaded: nothing new to show.
        if (same(editor.isEmptyUndoStack() ? baseline : exported)) return
        shown = bytes
        const current = editor
        if (url) URL.revokeObjectURL(url)
        url = URL.createObjectURL(blobOf(bytes, mime))
        state.set({ ready: false, tool: 'none' })
        current.stopDrawingMode()
        loading = true
        void current.loadImageFromURL(url, options.path).then((size) => {
          current.clearUndoStack()
          current.clearRedoStack()
          loading = false
          baseline = bytes
          exported = null
          state.set({ ready: true, width: size.newWidth, height: size.newHeight, canUndo: false, canRedo: false })
        })
      },
      viewState: () => undefined,
      setDark(dark) {
        root.dataset.theme = dark ? 'dark' : 'light'
      },
      setLocale(next) {
        locale = next
        render()
      },
      async export() {
        const current = editor
        // Untouched (or every edit undone): the file's own bytes, never a re-encoding.
        if (!current || current.isEmptyUndoStack()) return blobOf(baseline, mime)
        if (state.get().tool === 'crop') current.stopDrawingMode()
        await nextFrame()
        const format = mime === 'image/jpeg' ? 'jpeg' : mime === 'image/webp' ? 'webp' : 'png'
        // A lossless WebP stays lossless: Chromium encodes WebP at quality 1 as VP8L.
        const quality = format === 'webp' && isLosslessWebp(baseline) ? 1 : EXPORT_QUALITY
        const dataUrl = current.toDataURL({ format, ...(format === 'png' ? {} : { quality }) })
        exported = dataUrlBytes(dataUrl)
        if (format === 'jpeg') {
          const { width, height } = state.get()
          exported = carryExif(baseline, exported, { width, height })
        }
        return blobOf(exported, mime)
      },
      destroy() {
        editor?.destroy()
        editor = null
        if (url) URL.revokeObjectURL(url)
        react.unmount()
        root.remove()
      },
    }
  },
}

/**
 * The canvas sizing of the editor's graphics layer (tui-image-editor 3.15 `Graphics`; the editor's
 * own `resizeCanvasDimension` is a command with the history, and a zoom is no edit).
 */
interface CanvasSizing {
  adjustCanvasDimension(): void
  setCanvasCssDimension(dimension: Record<string, string>): void
}

type Action =
  | { kind: 'crop' | 'crop-square' | 'crop-apply' | 'flip-x' | 'flip-y' | 'draw' | 'shape' | 'text-tool' | 'cancel' }
  | { kind: 'undo' | 'redo' }
  | { kind: 'rotate'; angle: 90 | -90 }
  | { kind: 'text'; text: string }

function EditorView(props: {
  state: EditorState
  path: string
  onCanvas: (host: HTMLDivElement | null) => void
  run: (action: Action) => Promise<void>
  applyZoom: (zoom: ImageZoom) => number | null
}) {
  const { t } = useI18n()
  const snapshot = useSyncExternalStore(props.state.subscribe, props.state.get)
  const [text, setText] = useState('')
  const textBox = useRef<HTMLInputElement>(null)
  const canvasHost = useRef<HTMLDivElement>(null)
  const [frame, setFrame] = useState<HTMLDivElement | null>(null)
  const [zoom, setZoom] = useState<ImageZoom>(FIT)
  const [shown, setShown] = useState<number | null>(null)
  const { onCanvas, applyZoom } = props
  useEffect(() => onCanvas(canvasHost.current), [onCanvas])
  // Again after every change of the image's size too: a crop or a rotation re-fits the canvas.
  // In the next frame: the editor re-fits its canvas after the size change has been published.
  useEffect(() => {
    const frameId = requestAnimationFrame(() => setShown(applyZoom(zoom)))
    return () => cancelAnimationFrame(frameId)
  }, [applyZoom, zoom, snapshot.ready, snapshot.width, snapshot.height])
  useZoomInput(frame, frame, shown, setZoom)
  useEffect(() => {
    if (snapshot.tool === 'text') textBox.current?.focus()
  }, [snapshot.tool])
  const disabled = !snapshot.ready
  const tool = (label: string, action: Action, pressed?: boolean, extra?: { disabled?: boolean }) => (
    <button
      type="button"
      className="image-tool"
      disabled={disabled || extra?.disabled}
      aria-pressed={pressed}
      onClick={() => void props.run(action)}
    >
      {label}
    </button>
  )
  return (
    <div
      className="image-editor"
      data-testid="image-editor"
      data-ready={snapshot.ready}
      data-tool={snapshot.tool}
      ref={setFrame}
    >
      <div className="image-toolbar" role="toolbar" aria-label={t('image.tools')}>
        {tool(t('image.crop'), { kind: 'crop' }, snapshot.tool === 'crop')}
        {tool(t('image.rotateLeft'), { kind: 'rotate', angle: -90 })}
        {tool(t('image.rotateRight'), { kind: 'rotate', angle: 90 })}
        {tool(t('image.flipX'), { kind: 'flip-x' })}
        {tool(t('image.flipY'), { kind: 'flip-y' })}
        <span className="image-toolbar-gap" />
        {tool(t('image.draw'), { kind: 'draw' }, snapshot.tool === 'draw')}
        {tool(t('image.shape'), { kind: 'shape' })}
        {tool(t('image.text'), { kind: 'text-tool' }, snapshot.tool === 'text')}
        <span className="image-toolbar-gap" />
        {tool(t('image.undo'), { kind: 'undo' }, undefined, { disabled: !snapshot.canUndo })}
        {tool(t('image.redo'), { kind: 'redo' }, undefined, { disabled: !snapshot.canRedo })}
        <span className="image-toolbar-gap" />
        <ZoomControls zoom={zoom} shown={shown} disabled={disabled} onZoom={setZoom} />
        <span className="image-size" data-testid="image-size">
          {snapshot.ready ? t('image.size', { width: snapshot.width, height: snapshot.height }) : t('image.loading')}
        </span>
      </div>
      {snapshot.tool === 'crop' && (
        <div className="image-subbar" role="toolbar" aria-label={t('image.crop')}>
          {tool(t('image.cropSquare'), { kind: 'crop-square' })}
          {tool(t('image.cropApply'), { kind: 'crop-apply' })}
          {tool(t('image.cropCancel'), { kind: 'cancel' })}
        </div>
      )}
      {snapshot.tool === 'text' && (
        <form
          className="image-subbar"
          onSubmit={(event) => {
            event.preventDefault()
            void props.run({ kind: 'text', text })
            setText('')
          }}
        >
          <input
            ref={textBox}
            className="image-text-input"
            aria-label={t('image.textInput')}
            value={text}
            onChange={(event) => setText(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape') void props.run({ kind: 'cancel' })
            }}
          />
          <button type="submit" className="image-tool">
            {t('image.textAdd')}
          </button>
        </form>
      )}
      {snapshot.error && (
        <ErrorLine className="viewer-note viewer-error" message={t('image.failed', { message: snapshot.error })} />
      )}
      <div
        className="image-canvas"
        ref={canvasHost}
        tabIndex={0}
        role="application"
        aria-label={t('image.canvas', { path: props.path })}
      />
    </div>
  )
}

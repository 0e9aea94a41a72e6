import { textAdapter } from '../text'
import { createEmitter, type DocumentAdapter, type MountedDocument } from '../types'
import { installMathStyles, renderMarkdown } from './render'
import './markdown.css'

type Mode = 'preview' | 'split' | 'source'

const textOf = (content: { kind: 'text'; text: string } | { kind: 'bytes'; bytes: Uint8Array }) =>
  content.kind === 'text' ? content.text : new TextDecoder().decode(content.bytes)

/** A link in the preview that names a project file (relative, no scheme): its root-relative path. */
export function projectLinkTarget(href: string, fromPath: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//') || href.startsWith('#')) return null
  const clean = decodeURIComponent(href.split('#')[0]?.split('?')[0] ?? '')
  if (clean === '') return null
  const base = clean.startsWith('/') ? [] : fromPath.split('/').slice(0, -1)
  const parts = [...base]
  for (const segment of clean.replace(/^\/+/, '').split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') {
      if (parts.length === 0) return null
      parts.pop()
    } else parts.push(segment)
  }
  return parts.length > 0 ? parts.join('/') : null
}

/**
 * Markdown (spec 09): the Monaco source (autosaving like any text) and a rendered preview —
 * beside it, or instead of it. Links to project files open them in a tab; others are inert.
 */
export const markdownAdapter: DocumentAdapter = {
  async mount(container, options): Promise<MountedDocument> {
    installMathStyles()
    const events = createEmitter()
    const root = document.createElement('div')
    root.className = 'markdown-doc'
    const bar = document.createElement('div')
    bar.className = 'markdown-bar'
    bar.setAttribute('role', 'group')
    bar.setAttribute('aria-label', options.labels?.view ?? 'Markdown view')
    const panes = document.createElement('div')
    panes.className = 'markdown-panes'
    const sourcePane = document.createElement('div')
    sourcePane.className = 'markdown-source'
    const preview = document.createElement('article')
    preview.className = 'markdown-preview'
    preview.dataset.testid = 'markdown-preview'
    preview.tabIndex = 0
    preview.setAttribute('aria-label', options.labels?.preview ?? 'Preview')
    panes.append(sourcePane, preview)
    root.append(bar, panes)
    container.append(root)

    // A search match opens where the text is: the source is shown (beside the preview when there is
    // room), since the rendered preview cannot scroll to a line.
    const withSource = (): Mode => (container.clientWidth >= 900 ? 'split' : 'source')
    let mode: Mode =
      options.size === 'compact' || options.readOnly
        ? 'preview'
        : isReveal(options.viewState)
          ? withSource()
          : container.clientWidth >= 900
            ? 'split'
            : 'preview'
    const buttons = new Map<Mode, HTMLButtonElement>()
    const setMode = (next: Mode) => {
      mode = next
      root.dataset.mode = next
      for (const [m, button] of buttons) button.setAttribute('aria-pressed', String(m === next))
    }
    for (const [m, label] of [
      ['preview', options.labels?.preview ?? 'Preview'],
      ['split', options.labels?.split ?? 'Side by side'],
      ['source', options.labels?.source ?? 'Source'],
    ] as const) {
      const button = document.createElement('button')
      button.type = 'button'
      button.textContent = label
      button.dataset.testid = `markdown-mode-${m}`
      button.addEventListener('click', () => setMode(m))
      buttons.set(m, button)
      bar.append(button)
    }
    setMode(mode)

    const source = await textAdapter.mount(sourcePane, options)
    let text = textOf(options.content)
    const render = () => {
      preview.innerHTML = renderMarkdown(text)
    }
    render()
    let timer: ReturnType<typeof setTimeout> | undefined
    source.on('changed', (payload) => {
      text = source.currentText?.() ?? text
      if (timer) clearTimeout(timer)
      timer = setTimeout(render, 150)
      events.emit('changed', payload)
    })
    preview.addEventListener('click', (event) => {
      const anchor = (event.target as HTMLElement).closest('a')
      if (!anchor) return
      event.preventDefault()
      const target = projectLinkTarget(anchor.getAttribute('href') ?? '', options.path)
      if (target) options.openFile?.(target)
    })

    return {
      on: events.on,
      update(content, revision) {
        source.update(content, revision)
        text = textOf(content)
        render()
      },
      viewState: () => source.viewState(),
      restoreViewState(view) {
        if (mode === 'preview') setMode(withSource())
        source.restoreViewState?.(view)
      },
      setDark: (dark) => source.setDark(dark),
      currentText: () => source.currentText?.() ?? text,
      setReadOnly: (readOnly) => source.setReadOnly?.(readOnly),
      export: () => source.export(),
      destroy() {
        if (timer) clearTimeout(timer)
        source.destroy()
        root.remove()
      },
    }
  },
}

/** A view state that places the editor at a search match (`reveal`, set by the search feature). */
function isReveal(viewState: unknown): boolean {
  return typeof viewState === 'object' && viewState !== null && (viewState as { reveal?: unknown }).reveal === true
}

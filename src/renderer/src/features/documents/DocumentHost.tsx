import { useEffect, useRef, useState } from 'react'
import { useI18n } from '../../i18n'
import type { DocumentAdapterEntry, DocumentContent, MountOptions, MountedDocument } from './adapters/types'
import { hideKept, showKept, watchEscapes, type KeptDocument, type KeptSlot } from './working-copy/kept-documents'
import type { OfficeServices } from './adapters/office/services'

const darkQuery = () => window.matchMedia('(prefers-color-scheme: dark)')

/**
 * Mounts one adapter into a container and keeps it for as long as the same document is shown:
 * new content for it is handed to `update()`, never a re-mount (the view keeps its place).
 */
export function DocumentHost(props: {
  entry: DocumentAdapterEntry
  content: DocumentContent
  revision: string
  path: string
  readOnly: boolean
  size: 'full' | 'compact'
  viewState?: unknown
  onMounted?: (mounted: MountedDocument | null) => void
  onError?: (message: string) => void
  /** Markdown links to project files open them in a tab. */
  onOpenFile?: ((path: string) => void) | undefined
  /**
   * Runs before the instance is destroyed (the view is going away): an editor's last export and
   * publish finish first, then it is released.
   */
  release?: (mounted: MountedDocument, how: { kept: boolean }) => Promise<void>
  /** "Convert to PNG" and the like: a new file next to this one (project files only). */
  createCopy?: MountOptions['createCopy']
  /**
   * An editor whose instance outlives this view (kept-documents.ts): where it is kept. A tab switch
   * hides its element (inert, off the page) instead of destroying it; coming back shows it again.
   */
  keep?: KeptSlot | undefined
  /** The Office actions bound to this file, for the Office adapter (created by the tab). */
  office?: OfficeServices | undefined
}) {
  const { t, locale } = useI18n()
  const container = useRef<HTMLDivElement>(null)
  const mounted = useRef<MountedDocument | null>(null)
  const keptShown = useRef<KeptDocument | null>(null)
  const [failed, setFailed] = useState<string | null>(null)
  // The adapter's chunk (Monaco, pdf.js…) may take a moment on first use: say so meanwhile.
  const [mountedPath, setMountedPath] = useState<string | null>(null)
  const latest = useRef({ ...props, locale })
  const translate = useRef(t)
  useEffect(() => {
    latest.current = { ...props, locale }
    translate.current = t
  })
  const { entry, path, size, readOnly } = props

  const keepSlot = props.keep
  useEffect(() => {
    const host = container.current
    if (!host) return
    let cancelled = false
    let instance: MountedDocument | null = null
    let element: HTMLElement | null = null
    let kept: KeptDocument | undefined
    // While a kept editor is shown, what it puts outside its element is noted, to hide with it.
    let stopEscapes: (() => void) | null = null
    const dark = darkQuery()
    const onScheme = () => instance?.setDark(dark.matches)
    const unsubscribe: Array<() => void> = []
    void (async () => {
      try {
        const reattached = keepSlot?.get()
        if (reattached && reattached.adapterId === entry.id) {
          // The same editor as before the tab switch: its canvas, undo stack and working copy intact.
          kept = reattached
          element = reattached.element
          showKept(reattached, host)
          stopEscapes = watchEscapes(reattached.escaped)
          instance = reattached.mounted
          instance.show?.()
          instance.setDark(dark.matches)
          instance.setLocale?.(latest.current.locale)
          // What the tab read since, if anything; the editor ignores its own published bytes
          // (adapter contract).
          const { content, revision } = latest.current
          if (reattached.delivered.content !== content) {
            reattached.delivered = { content, revision }
            instance.update(content, revision)
          }
        } else {
          const adapter = await entry.load()
          if (cancelled) return
          const { content, revision, viewState } = latest.current
          element = document.createElement('div')
          element.className = 'document-instance'
          host.append(element)
          const escaped = new Set<Element>()
          if (keepSlot) stopEscapes = watchEscapes(escaped)
          instance = await adapter.mount(element, {
            content,
            revision,
            readOnly,
            path,
            size,
            viewState,
            dark: dark.matches,
            openFile: (target) => latest.current.onOpenFile?.(target),
            labels: labelsFor(translate.current, entry.id, path),
            locale: latest.current.locale,
            ...(latest.current.createCopy ? { createCopy: latest.current.createCopy } : {}),
            ...(latest.current.office ? { office: latest.current.office } : {}),
          })
          if (cancelled) {
            instance.destroy()
            element.remove()
            return
          }
          if (keepSlot) {
            kept = { adapterId: entry.id, element, mounted: instance, escaped, delivered: { content, revision } }
            keepSlot.keep(kept)
          }
        }
        mounted.current = instance
        keptShown.current = kept ?? null
        setMountedPath(path)
        unsubscribe.push(
          instance.on('error', ({ message }) => {
            setFailed(message)
            latest.current.onError?.(message)
          }),
        )
        dark.addEventListener('change', onScheme)
        latest.current.onMounted?.(instance)
      } catch (error) {
        if (!cancelled) setFailed(String(error))
      }
    })()
    return () => {
      cancelled = true
      dark.removeEventListener('change', onScheme)
      for (const off of unsubscribe) off()
      latest.current.onMounted?.(null)
      mounted.current = null
      keptShown.current = null
      const released = instance
      const release = latest.current.release
      stopEscapes?.()
      if (kept && released && released.hide?.() !== false) {
        // Kept for the next view of this tab, inert meanwhile; closing the tab releases it.
        hideKept(kept)
        if (release) void release(released, { kept: true })
        return
      }
      if (kept && released) keepSlot?.forget(released)
      const detached = element
      if (released && release)
        void release(released, { kept: false }).finally(() => {
          released.destroy()
          detached?.remove()
        })
      else {
        released?.destroy()
        detached?.remove()
      }
    }
  }, [entry, path, size, readOnly, keepSlot])

  const { content, revision } = props
  useEffect(() => {
    const kept = keptShown.current
    if (kept) {
      if (kept.delivered.content === content) return
      kept.delivered = { content, revision }
    }
    mounted.current?.update(content, revision)
  }, [content, revision])

  useEffect(() => {
    mounted.current?.setLocale?.(locale)
  }, [locale, mountedPath])

  return (
    <>
      {mountedPath !== path && failed === null && (
        <p className="viewer-note document-loading" role="status">
          {t('viewer.loading', { path })}
        </p>
      )}
      <div
        ref={container}
        className={`document-host document-host-${size}`}
        data-testid={size === 'full' ? `${entry.id}-view` : undefined}
        data-adapter={entry.id}
        data-failed={failed !== null ? 'true' : undefined}
      />
    </>
  )
}

function labelsFor(t: ReturnType<typeof useI18n>['t'], adapter: string, path: string): Record<string, string> {
  return {
    view: adapter === 'csv' ? t('csv.view') : t('markdown.view'),
    preview: t('markdown.preview'),
    split: t('markdown.split'),
    source: adapter === 'csv' ? t('csv.source') : t('markdown.source'),
    table: t('csv.table'),
    rows: t('csv.rows'),
    grid: t('csv.grid', { path }),
  }
}

import { useEffect, useRef, useState } from 'react'
import { useI18n } from '../../i18n'
import type { AdapterHost, DocumentAdapterEntry, DocumentContent, MountedDocument } from './adapters/types'
import { keepDocument, keptDocument } from './kept-documents'
import type { BinaryAutosave } from './save/binary-autosave'

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
  host?: AdapterHost
  /**
   * An editing adapter on a project file: the instance is kept under this key when the view goes
   * away (a tab switch) and re-attached when it comes back, undo stack and autosave included.
   */
  keep?: { key: string; autosave: (mounted: MountedDocument, revision: string) => BinaryAutosave | null }
}) {
  const { t, locale } = useI18n()
  const container = useRef<HTMLDivElement>(null)
  const mounted = useRef<MountedDocument | null>(null)
  const [failed, setFailed] = useState<string | null>(null)
  // The adapter's chunk (Monaco, pdf.js…) may take a moment on first use: say so meanwhile.
  const [mountedPath, setMountedPath] = useState<string | null>(null)
  const latest = useRef({ ...props, locale })
  useEffect(() => {
    latest.current = { ...props, locale }
  })
  const { entry, path, size, readOnly } = props
  const keepKey = props.keep?.key

  useEffect(() => {
    const host = container.current
    if (!host) return
    let cancelled = false
    let instance: MountedDocument | null = null
    const dark = darkQuery()
    const onScheme = () => instance?.setDark(dark.matches)
    let element: HTMLElement | null = null
    const unsubscribe: Array<() => void> = []
    void (async () => {
      try {
        const reattached = keepKey ? keptDocument(keepKey) : undefined
        if (reattached && reattached.adapterId === entry.id) {
          element = reattached.element
          host.append(element)
          instance = reattached.mounted
          const { content, revision } = latest.current
          if (reattached.revision !== revision) {
            reattached.revision = revision
            instance.update(content, revision)
          }
          instance.setDark(dark.matches)
          instance.setLocale?.(latest.current.locale)
        } else {
          const adapter = await entry.load()
          if (cancelled) return
          const { content, revision, viewState } = latest.current
          element = document.createElement('div')
          element.className = 'document-instance'
          host.append(element)
          instance = await adapter.mount(element, {
            content,
            revision,
            readOnly,
            path,
            size,
            viewState,
            dark: dark.matches,
            locale: latest.current.locale,
            ...(latest.current.host ? { host: latest.current.host } : {}),
          })
          if (cancelled && !keepKey) {
            instance.destroy()
            element.remove()
            return
          }
          const keep = latest.current.keep
          if (keepKey && keep) {
            const autosave = keep.autosave(instance, revision)
            if (autosave) instance.on('changed', () => autosave.changed())
            keepDocument(keepKey, { adapterId: entry.id, element, mounted: instance, autosave, revision })
            if (cancelled) {
              element.remove()
              return
            }
          }
        }
        mounted.current = instance
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
      if (keepKey) {
        // Kept for the next view of this tab; closing the tab releases it (kept-documents.ts).
        element?.remove()
      } else {
        instance?.destroy()
        element?.remove()
      }
    }
  }, [entry, path, size, readOnly, keepKey])

  const { content, revision } = props
  useEffect(() => {
    const current = mounted.current
    if (!current) return
    const record = keepKey ? keptDocument(keepKey) : undefined
    if (record) {
      if (record.revision === revision) return
      record.revision = revision
    }
    current.update(content, revision)
  }, [content, revision, keepKey])

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

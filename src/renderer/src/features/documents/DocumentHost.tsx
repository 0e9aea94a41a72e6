import { useEffect, useRef, useState } from 'react'
import { useI18n } from '../../i18n'
import type { DocumentAdapterEntry, DocumentContent, MountedDocument } from './adapters/types'

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
  release?: (mounted: MountedDocument) => Promise<void>
}) {
  const { t, locale } = useI18n()
  const container = useRef<HTMLDivElement>(null)
  const mounted = useRef<MountedDocument | null>(null)
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

  useEffect(() => {
    const element = container.current
    if (!element) return
    let cancelled = false
    let instance: MountedDocument | null = null
    const dark = darkQuery()
    const onScheme = () => instance?.setDark(dark.matches)
    void (async () => {
      try {
        const adapter = await entry.load()
        if (cancelled) return
        const { content, revision, viewState } = latest.current
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
        })
        if (cancelled) {
          instance.destroy()
          return
        }
        mounted.current = instance
        setMountedPath(path)
        instance.on('error', ({ message }) => {
          setFailed(message)
          latest.current.onError?.(message)
        })
        dark.addEventListener('change', onScheme)
        latest.current.onMounted?.(instance)
      } catch (error) {
        if (!cancelled) setFailed(String(error))
      }
    })()
    return () => {
      cancelled = true
      dark.removeEventListener('change', onScheme)
      latest.current.onMounted?.(null)
      mounted.current = null
      const released = instance
      const release = latest.current.release
      if (released && release) void release(released).finally(() => released.destroy())
      else released?.destroy()
    }
  }, [entry, path, size, readOnly])

  const { content, revision } = props
  useEffect(() => {
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

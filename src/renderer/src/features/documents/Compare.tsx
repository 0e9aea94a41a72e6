import { useEffect, useRef } from 'react'

/** Two texts side by side (or stacked when narrow), loaded with the Monaco chunk on demand. */
export function Compare(props: { original: string; modified: string; path: string; testId?: string }) {
  const container = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = container.current
    if (!element) return
    let cancelled = false
    let mounted: { destroy(): void } | undefined
    void import('./adapters/text/compare').then(({ mountCompare }) => {
      if (cancelled) return
      mounted = mountCompare(element, {
        original: props.original,
        modified: props.modified,
        path: props.path,
        dark: window.matchMedia('(prefers-color-scheme: dark)').matches,
      })
    })
    return () => {
      cancelled = true
      mounted?.destroy()
    }
  }, [props.original, props.modified, props.path])
  return <div ref={container} className="compare-view" data-testid={props.testId ?? 'compare-view'} />
}

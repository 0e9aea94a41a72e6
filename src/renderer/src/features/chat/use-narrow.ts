import { useEffect, useState, type RefObject } from 'react'

/** Whether the element is at most `maxWidth` CSS pixels wide, following its resizes. */
export function useNarrow(ref: RefObject<HTMLElement | null>, maxWidth: number): boolean {
  const [narrow, setNarrow] = useState(false)
  useEffect(() => {
    const element = ref.current
    if (!element || typeof ResizeObserver === 'undefined') return
    const observer = new ResizeObserver((entries) => {
      const width = entries[0]?.borderBoxSize[0]?.inlineSize ?? element.getBoundingClientRect().width
      setNarrow(width <= maxWidth)
    })
    observer.observe(element)
    return () => observer.disconnect()
  }, [ref, maxWidth])
  return narrow
}

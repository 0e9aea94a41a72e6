import type { OutlineNode } from './reader-state'

/** An outline entry as pdf.js's `getOutline` gives it. */
export interface RawOutline {
  title: string
  dest: string | unknown[] | null
  items: RawOutline[]
}

/** The outline with ids that say where each entry is ("0.2.1"), for the tree's keys and focus. */
export function toOutline(items: readonly RawOutline[], prefix = ''): OutlineNode[] {
  return items.map((item, index) => {
    const id = `${prefix}${index}`
    return { id, title: item.title, dest: item.dest, children: toOutline(item.items ?? [], `${id}.`) }
  })
}

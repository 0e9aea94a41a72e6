import type { DocumentCounts } from '../../../../shared/protocol'
import type { MessageKey, Translate } from '../../i18n'

const NOUN: Record<DocumentCounts['unit'], { one: MessageKey; other: MessageKey }> = {
  paragraph: { one: 'docCounts.noun.paragraph.one', other: 'docCounts.noun.paragraph.other' },
  cell: { one: 'docCounts.noun.cell.one', other: 'docCounts.noun.cell.other' },
  slide: { one: 'docCounts.noun.slide.one', other: 'docCounts.noun.slide.other' },
  annotation: { one: 'docCounts.noun.annotation.one', other: 'docCounts.noun.annotation.other' },
}

const SHORT: Record<DocumentCounts['unit'], { one: MessageKey; other: MessageKey }> = {
  paragraph: { one: 'docCounts.short.paragraph', other: 'docCounts.short.paragraph' },
  cell: { one: 'docCounts.short.cell.one', other: 'docCounts.short.cell.other' },
  slide: { one: 'docCounts.short.slide.one', other: 'docCounts.short.slide.other' },
  annotation: { one: 'docCounts.short.annotation.one', other: 'docCounts.short.annotation.other' },
}

type Part = {
  readonly sign: '+' | '−' | '~' | ''
  readonly kind: 'added' | 'removed' | 'changed'
  readonly count: number
}

/**
 * The parts a count line shows, zeros left out. Cells are only ever "changed" (an emptied cell is a
 * change of value), so they read `12 cells` without a sign, as the issue words it.
 */
function partsOf(counts: DocumentCounts): Part[] {
  if (counts.unit === 'cell') return [{ sign: '', kind: 'changed', count: counts.changed }]
  const parts: Part[] = [
    { sign: '+', kind: 'added', count: counts.added },
    { sign: '−', kind: 'removed', count: counts.removed },
    { sign: '~', kind: 'changed', count: counts.changed },
  ]
  const shown = parts.filter((part) => part.count > 0)
  // Nothing counted (e.g. only a moved slide's bytes): still a line that says "no change" in numbers.
  return shown.length > 0 ? shown : [{ sign: '~', kind: 'changed', count: 0 }]
}

const plural = (count: number) => (count === 1 ? 'one' : 'other')

/** `+3 ¶ −1 ¶ ~2 ¶`, `12 cells`, `+1 slide ~2 slides`, `+2 notes`: what a file row shows. */
export function countsText(counts: DocumentCounts, t: Translate): string {
  return partsOf(counts)
    .map((part) => `${part.sign}${t(SHORT[counts.unit][plural(part.count)], { count: part.count })}`)
    .join(' ')
}

/** The same counts in words for assistive technology: "3 paragraphs added, 1 removed, 2 changed". */
export function countsLabel(counts: DocumentCounts, t: Translate): string {
  return partsOf(counts)
    .map((part, index) => {
      if (index > 0) return t(`docCounts.next.${part.kind}`, { count: part.count })
      const noun = t(NOUN[counts.unit][plural(part.count)])
      return t(`docCounts.first.${part.kind}`, { count: part.count, noun })
    })
    .join(t('docCounts.separator'))
}

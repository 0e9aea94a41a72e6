import { writePdf, type PageSpec, type TextRun } from './pdf-writer'

/** Courier advances 0.6 em per character, so a line's width is known without font metrics. */
const COURIER_ADVANCE = 0.6

/**
 * A paragraph of Courier lines set justified to `width` (all but the last line, as a typeset
 * paper would be), `leading` apart, the first line optionally indented.
 */
export function paragraph(
  lines: readonly string[],
  at: { x: number; y: number; size: number; width: number; leading: number; indent?: number },
): TextRun[] {
  return lines.map((text, i) => {
    const x = at.x + (i === 0 ? (at.indent ?? 0) : 0)
    const natural = text.length * COURIER_ADVANCE * at.size
    const spaces = (text.match(/ /g) ?? []).length
    const target = at.width - (i === 0 ? (at.indent ?? 0) : 0)
    const last = i === lines.length - 1
    return {
      x,
      y: at.y - i * at.leading,
      size: at.size,
      text,
      font: 'courier' as const,
      ...(!last && spaces > 0 && target > natural ? { wordSpacing: (target - natural) / spaces } : {}),
    }
  })
}

export const PAPER = {
  title: 'A Study of Lattice Methods',
  /** Page 1's three paragraphs as laid out, and what copying all of them must give. */
  paragraphs: [
    ['Lattice methods give a con-', 'venient way for co\u00adoperative', 'reasoning in the plane.'],
    ['The second paragraph starts', 'after a wider gap and it ends', 'right here.'],
    ['Indented paragraphs start a', 'new paragraph too.'],
  ],
  copied:
    'Lattice methods give a convenient way for cooperative reasoning in the plane.\n' +
    'The second paragraph starts after a wider gap and it ends right here.\n' +
    'Indented paragraphs start a new paragraph too.',
  cjkLines: ['知识库是一个开放的', '平台，欢迎参与编写。'],
  cjkCopied: '知识库是一个开放的平台，欢迎参与编写。',
  outline: [
    { title: '1 Introduction', page: 1, children: [{ title: '1.1 Background', page: 2 }] },
    { title: '2 Method', page: 3, children: [{ title: '2.1 Data', page: 4 }] },
    { title: '3 Results', page: 5 },
    { title: '4 中文摘要', page: 6 },
  ],
  findTerm: 'lattice',
}

function bodyPage(heading: string, sentences: readonly string[]): PageSpec {
  return {
    texts: [
      { x: 72, y: 760, size: 16, text: heading },
      ...sentences.map((text, i) => ({ x: 72, y: 720 - i * 18, size: 11, text })),
    ],
  }
}

/**
 * A six-page "paper": title and three paragraphs (hyphen, soft hyphen, gap, indent) on page 1, a
 * link to page 5, a nested outline, the find term a known number of times, Chinese on page 6.
 */
export function paperPdf(options: { userPassword?: string } = {}): Buffer {
  const [p1 = [], p2 = [], p3 = []] = PAPER.paragraphs
  const text = { x: 72, size: 11, width: 330, leading: 14 }
  const first: PageSpec = {
    texts: [
      { x: 72, y: 770, size: 20, text: PAPER.title },
      ...paragraph(p1, { ...text, y: 720 }),
      ...paragraph(p2, { ...text, y: 720 - 3 * 14 - 16 }),
      ...paragraph(p3, { ...text, y: 720 - 6 * 14 - 16, indent: 26.4 }),
      { x: 72, y: 520, size: 11, text: 'For the numbers, see Results on page 5.' },
      { x: 72, y: 500, size: 11, text: 'Project page: https://example.org/lattice' },
    ],
    links: [
      { rect: [72, 515, 330, 530], toPage: 5 },
      { rect: [72, 495, 330, 510], uri: 'https://example.org/lattice' },
    ],
  }
  const pages: PageSpec[] = [
    first,
    bodyPage('1.1 Background', ['A lattice is a discrete subgroup.', 'Every lattice has a basis.']),
    bodyPage('2 Method', [
      'We reduce the lattice basis first.',
      'The reduced lattice is short.',
      'Lattice sieving follows.',
    ]),
    bodyPage('2.1 Data', ['Samples came from random lattice bases.']),
    bodyPage('3 Results', ['RESULTS TABLE', 'The lattice experiments finished.', 'Each lattice took seconds.']),
    {
      texts: [
        { x: 72, y: 760, size: 16, text: 'Summary' },
        ...PAPER.cjkLines.map((line, i) => ({ x: 72, y: 720 - i * 20, size: 16, text: line, font: 'cjk' as const })),
      ],
    },
  ]
  return writePdf({
    pages,
    outline: PAPER.outline,
    title: PAPER.title,
    ...(options.userPassword !== undefined ? { userPassword: options.userPassword } : {}),
  })
}

/** How often the paper contains the find term (case-insensitive), counted from what was written. */
export function paperFindCount(): number {
  const all = [
    PAPER.title,
    ...PAPER.paragraphs.flat(),
    'For the numbers, see Results on page 5.',
    'Project page: https://example.org/lattice',
    'A lattice is a discrete subgroup.',
    'Every lattice has a basis.',
    'We reduce the lattice basis first.',
    'The reduced lattice is short.',
    'Lattice sieving follows.',
    'Samples came from random lattice bases.',
    'The lattice experiments finished.',
    'Each lattice took seconds.',
  ]
  return all.reduce((sum, line) => sum + (line.toLowerCase().match(/lattice/g) ?? []).length, 0)
}

/** `count` pages, each saying its number in large type (benchmarks, thumbnails on long files). */
export function longPdf(count: number): Buffer {
  return writePdf({
    pages: Array.from({ length: count }, (_, i) => ({
      texts: [
        { x: 72, y: 700, size: 48, text: `Page ${i + 1}` },
        { x: 72, y: 640, size: 12, text: `This is page ${i + 1} of ${count} of a long document.` },
      ],
    })),
  })
}

/** A PDF cut off in the middle: header and part of an object, no cross-reference table. */
export function truncatedPdf(): Buffer {
  const whole = paperPdf()
  return whole.subarray(0, 300)
}

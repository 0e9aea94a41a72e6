import { describe, expect, test } from 'vitest'
import { scanDocx } from '../src/shared/office/docx'
import { numberNotesAsWord } from '../src/shared/office/docx-notes'
import { changedParts, makeDocx, unzipParts } from './support/office-fixtures'

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
const run = (text: string) => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`
const reference = (id: number, extra = '') => `<w:r><w:footnoteReference w:id="${id}"${extra}/></w:r>`
const note = (id: number, text: string, type = '') =>
  `<w:footnote${type ? ` w:type="${type}"` : ''} w:id="${id}"><w:p>${run(text)}</w:p></w:footnote>`

/** Footnotes with the given ids (separators first), the body referencing `order`. */
function notesDocx(options: {
  separators: [number, number]
  notes: [number, string][]
  order: string
  settings?: string
}) {
  return makeDocx(options.order, {
    rels:
      `<Relationship Id="rIdNotes" Type="${REL}/footnotes" Target="footnotes.xml"/>` +
      (options.settings ? `<Relationship Id="rIdSettings" Type="${REL}/settings" Target="settings.xml"/>` : ''),
    parts: {
      'word/footnotes.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes ${W_NS}>${note(options.separators[0], '', 'separator')}${note(options.separators[1], '', 'continuationSeparator')}${options.notes.map(([id, text]) => note(id, text)).join('')}</w:footnotes>`,
      ...(options.settings ? { 'word/settings.xml': options.settings } : {}),
    },
  })
}

async function part(bytes: Uint8Array, name: string): Promise<string> {
  return (await unzipParts(bytes)).get(name)?.toString() ?? ''
}

describe('footnote ids as Word numbers the notes (what the editor shows)', () => {
  test('LibreOffice ids (separators 0 and 1, notes from 2): notes become 1, 2 and the separators move out of the way', async () => {
    const settings = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:settings ${W_NS}><w:footnotePr><w:footnote w:id="0"/><w:footnote w:id="1"/></w:footnotePr><w:defaultTabStop w:val="720"/></w:settings>`
    const original = await notesDocx({
      separators: [0, 1],
      notes: [
        [2, 'First note.'],
        [3, 'Second note.'],
      ],
      order: `<w:p>${run('One')}${reference(2)}${run(' two')}${reference(3)}</w:p>`,
      settings,
    })
    const outcome = await numberNotesAsWord(original)
    if (outcome.kind !== 'renumbered') throw new Error('expected the ids to change')
    expect(outcome.footnotes).toBe(2)
    const document = await part(outcome.bytes, 'word/document.xml')
    expect([...document.matchAll(/footnoteReference w:id="(-?\d+)"/g)].map((m) => m[1])).toEqual(['1', '2'])
    const notes = await part(outcome.bytes, 'word/footnotes.xml')
    expect(notes).toContain('<w:footnote w:type="separator" w:id="0">')
    expect(notes).toContain('<w:footnote w:type="continuationSeparator" w:id="-1">')
    expect(notes).toMatch(/<w:footnote w:id="1"><w:p><w:r><w:t xml:space="preserve">First note\./)
    expect(notes).toMatch(/<w:footnote w:id="2"><w:p><w:r><w:t xml:space="preserve">Second note\./)
    // The separators settings name follow them; everything else in settings is as it was.
    expect(await part(outcome.bytes, 'word/settings.xml')).toBe(
      settings.replace('<w:footnote w:id="0"/><w:footnote w:id="1"/>', '<w:footnote w:id="0"/><w:footnote w:id="-1"/>'),
    )
    expect((await changedParts(original, outcome.bytes)).sort()).toEqual([
      'word/document.xml',
      'word/footnotes.xml',
      'word/settings.xml',
    ])
  })

  test('notes referenced out of id order are numbered in reading order; a custom mark is not counted', async () => {
    const original = await notesDocx({
      separators: [-1, 0],
      notes: [
        [1, 'Referenced second.'],
        [4, 'Referenced first.'],
        [7, 'Custom mark.'],
      ],
      order: `<w:p>${run('A')}${reference(4)}${run(' B')}${reference(7, ' w:customMarkFollows="1"')}<w:r><w:t>*</w:t></w:r>${run(' C')}${reference(1)}</w:p>`,
    })
    const outcome = await numberNotesAsWord(original)
    if (outcome.kind !== 'renumbered') throw new Error('expected the ids to change')
    const document = await part(outcome.bytes, 'word/document.xml')
    expect([...document.matchAll(/footnoteReference w:id="(-?\d+)"/g)].map((m) => m[1])).toEqual(['1', '-2', '2'])
    const notes = await part(outcome.bytes, 'word/footnotes.xml')
    expect(notes).toMatch(/<w:footnote w:id="1"><w:p><w:r><w:t xml:space="preserve">Referenced first\./)
    expect(notes).toMatch(/<w:footnote w:id="2"><w:p><w:r><w:t xml:space="preserve">Referenced second\./)
    expect(notes).toMatch(/<w:footnote w:id="-2"><w:p><w:r><w:t xml:space="preserve">Custom mark\./)
  })

  test('Word ids (separators -1 and 0, notes 1, 2 in order) and documents without notes are left as they are', async () => {
    const word = await notesDocx({
      separators: [-1, 0],
      notes: [
        [1, 'One.'],
        [2, 'Two.'],
      ],
      order: `<w:p>${run('A')}${reference(1)}${run(' B')}${reference(2)}</w:p>`,
    })
    expect(await numberNotesAsWord(word)).toEqual({ kind: 'unchanged' })
    expect(await numberNotesAsWord(await makeDocx(`<w:p>${run('plain')}</w:p>`))).toEqual({ kind: 'unchanged' })
  })
})

describe('DOCX scan: a table of contents', () => {
  const toc = `<w:sdt><w:sdtPr><w:docPartObj><w:docPartGallery w:val="Table of Contents"/><w:docPartUnique/></w:docPartObj></w:sdtPr><w:sdtContent><w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> TOC \\o "1-3" \\h </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>${run('Chapter One\t1')}</w:p><w:p>${run('Chapter Two\t2')}<w:r><w:fldChar w:fldCharType="end"/></w:r></w:p></w:sdtContent></w:sdt>`

  test('is named as what the editor drops (its field and first entry), apart from other content controls', async () => {
    const scan = await scanDocx(
      await makeDocx(
        `${toc}<w:p>${run('Body')}</w:p><w:sdt><w:sdtPr><w:text/></w:sdtPr><w:sdtContent><w:p/></w:sdtContent></w:sdt>`,
      ),
    )
    expect(scan.losses.map((l) => [l.feature, l.count])).toEqual([
      ['table-of-contents', 1],
      ['content-control', 1],
    ])
  })

  test('a content control whose gallery is something else is an ordinary content control', async () => {
    const scan = await scanDocx(
      await makeDocx(
        `<w:sdt><w:sdtPr><w:docPartObj><w:docPartGallery w:val="Cover Pages"/></w:docPartObj></w:sdtPr><w:sdtContent><w:p/></w:sdtContent></w:sdt>`,
      ),
    )
    expect(scan.losses.map((l) => l.feature)).toEqual(['content-control'])
  })
})

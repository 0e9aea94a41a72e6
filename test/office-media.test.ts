import { describe, expect, test } from 'vitest'
import { dedupeMedia } from '../src/shared/office/media'
import { changedParts, makeDocx, PNG_1X1, unzipParts } from './support/office-fixtures'

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'

/** What the DOCX editor's save looks like: the kept picture written again under a new name. */
async function savedWithCopies() {
  return makeDocx('<w:p/>', {
    rels:
      `<Relationship Id="rId1" Type="${REL}/image" Target="media/image1.png"/>` +
      `<Relationship Id="rId2" Type="${REL}/image" Target="media/image2.png"/>` +
      `<Relationship Id="rId3" Type="${REL}/image" Target="media/other.png"/>`,
    types:
      '<Default Extension="png" ContentType="image/png"/><Override PartName="/word/media/image2.png" ContentType="image/png"/>',
    parts: {
      'word/media/image2.png': PNG_1X1,
      'word/media/image1.png': PNG_1X1,
      'word/media/other.png': Buffer.concat([PNG_1X1, Buffer.from([0])]),
    },
  })
}

describe('DOCX media after the editor saves', () => {
  test('byte-identical copies fold into the original part; relationships follow; the rest is untouched', async () => {
    const saved = await savedWithCopies()
    const folded = await dedupeMedia(saved, ['word/media/image1.png'])
    const parts = await unzipParts(folded)
    expect([...parts.keys()].filter((name) => name.includes('/media/')).sort()).toEqual([
      'word/media/image1.png',
      'word/media/other.png',
    ])
    const rels = parts.get('word/_rels/document.xml.rels')?.toString() ?? ''
    expect(rels).toContain(
      'Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.png"',
    )
    expect(rels).toContain('Target="media/other.png"')
    expect(parts.get('[Content_Types].xml')?.toString()).not.toContain('image2.png')
    expect((await changedParts(saved, folded)).sort()).toEqual([
      '[Content_Types].xml',
      'word/_rels/document.xml.rels',
      'word/media/image2.png',
    ])
  })

  test('without copies the bytes come back as they are', async () => {
    const single = await makeDocx('<w:p/>', { parts: { 'word/media/image1.png': PNG_1X1 } })
    expect(await dedupeMedia(single)).toBe(single)
  })
})

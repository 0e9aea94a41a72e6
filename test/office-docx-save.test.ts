import { describe, expect, test } from 'vitest'
import { normaliseEditorSave, rejoinPageBreaks, runPropertiesFirst } from '../src/shared/office/docx-save'
import { changedParts, makeDocx, unzipParts } from './support/office-fixtures'

const BREAK = '<w:r><w:br w:type="page"/></w:r>'

describe("the editor's save put back in order", () => {
  test('run properties written after a lastRenderedPageBreak move to the front of the run', () => {
    expect(
      runPropertiesFirst('<w:p><w:r><w:lastRenderedPageBreak/><w:rPr><w:b/></w:rPr><w:t>Two</w:t></w:r></w:p>'),
    ).toBe('<w:p><w:r><w:rPr><w:b/></w:rPr><w:lastRenderedPageBreak/><w:t>Two</w:t></w:r></w:p>')
    const ordered = '<w:p><w:r><w:rPr><w:i/></w:rPr><w:t>ok</w:t></w:r><w:r><w:t>plain</w:t></w:r></w:p>'
    expect(runPropertiesFirst(ordered)).toBe(ordered)
  })

  test('a page break split out of its paragraph goes back to the end of it; not across a section break', () => {
    const split = `<w:p w14:paraId="1"><w:r><w:t>Chapter one ends.</w:t></w:r><w:r></w:r></w:p><w:p>${BREAK}</w:p><w:p><w:pPr><w:pageBreakBefore/></w:pPr><w:r><w:t>Two</w:t></w:r></w:p>`
    expect(rejoinPageBreaks(split, '<w:p><w:r><w:t>original</w:t></w:r></w:p>')).toBe(
      `<w:p w14:paraId="1"><w:r><w:t>Chapter one ends.</w:t></w:r>${BREAK}</w:p><w:p><w:pPr><w:pageBreakBefore/></w:pPr><w:r><w:t>Two</w:t></w:r></w:p>`,
    )
    const afterSection = `<w:p><w:pPr><w:sectPr/></w:pPr><w:r><w:t>End</w:t></w:r></w:p><w:p>${BREAK}</w:p>`
    expect(rejoinPageBreaks(afterSection, '')).toBe(afterSection)
    // The original had a paragraph that is only a page break: such paragraphs may be the person's own.
    expect(rejoinPageBreaks(split, `<w:p>${BREAK}</w:p>`)).toBe(split)
    // First in the body (nothing before it) or after a table: left as it is.
    expect(rejoinPageBreaks(`<w:body><w:p>${BREAK}</w:p>`, '')).toBe(`<w:body><w:p>${BREAK}</w:p>`)
    expect(rejoinPageBreaks(`</w:tbl><w:p>${BREAK}</w:p>`, '')).toBe(`</w:tbl><w:p>${BREAK}</w:p>`)
  })

  test('on a package: only the part that needed it is rewritten', async () => {
    const original = await makeDocx(`<w:p><w:r><w:t>A</w:t></w:r>${BREAK}</w:p><w:p><w:r><w:t>B</w:t></w:r></w:p>`)
    const saved = await makeDocx(
      `<w:p><w:r><w:t>A edited</w:t></w:r></w:p><w:p>${BREAK}</w:p><w:p><w:r><w:t>B</w:t></w:r></w:p>`,
    )
    const fixed = await normaliseEditorSave(saved, original)
    expect(await changedParts(saved, fixed)).toEqual(['word/document.xml'])
    expect((await unzipParts(fixed)).get('word/document.xml')?.toString()).toContain(
      `<w:p><w:r><w:t>A edited</w:t></w:r>${BREAK}</w:p><w:p><w:r><w:t>B</w:t></w:r></w:p>`,
    )
    const clean = await makeDocx('<w:p><w:r><w:t>nothing to do</w:t></w:r></w:p>')
    expect(await normaliseEditorSave(clean, clean)).toBe(clean)
  })
})

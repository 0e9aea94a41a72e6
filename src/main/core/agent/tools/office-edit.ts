import { OfficeEditInputSchema } from '../../../../shared/office/document-edits'
import { defineDocumentTool } from './document-change'

export const officeEditTool = defineDocumentTool({
  name: 'office_edit',
  description: [
    'Changes a DOCX, PPTX or XLSX file you have read, by the anchors read showed; all edits of one call are applied',
    'together or not at all, and the untouched parts of the file stay byte-identical. edits (in order, all naming the',
    'document as you read it): DOCX — {op:"replace_text", anchor:"p12"|"t2.r3.c1", text} (keeps the run formatting',
    'where the text is unchanged; "\\n" separates paragraphs), {op:"insert_paragraph", after:"p12", text, style?},',
    '{op:"delete_paragraph", anchor:"p12"}; PPTX — {op:"replace_text", anchor:"s3.sh5", text}, {op:"add_slide",',
    'after: the slide number it follows (0 = first), layout_of?, title?, body?}, {op:"duplicate_slide", slide}, {op:"delete_slide", slide},',
    '{op:"move_slide", slide, to}; XLSX — {op:"set_cells", sheet?, range:"B2"|"B2:D4", values:[[…]]} where a string',
    'starting with "=" is a formula and null clears (dependent formulas are recalculated). Refused, with nothing',
    'written, if the file changed since you read it or an anchor, sheet or slide does not exist. Every change is',
    'recorded and can be undone by the user.',
  ].join(' '),
  input: OfficeEditInputSchema,
  change: (documents, input, path, bytes) => documents.edit(path, bytes, input.edits),
  next: 'Anchors may have moved: read the file again before further edits.',
})

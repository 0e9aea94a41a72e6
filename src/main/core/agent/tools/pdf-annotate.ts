import { PdfAnnotateInputSchema } from '../../../../shared/office/document-edits'
import { defineDocumentTool } from './document-change'

export const pdfAnnotateTool = defineDocumentTool({
  name: 'pdf_annotate',
  description: [
    'Adds or removes annotations in a PDF you have read; saved as a PDF reader saves them (an incremental update),',
    'all together or not at all. annotations: {op:"highlight", page, text, occurrence?, color?:"#rrggbb", note?}',
    'highlights the text found on that 1-based page; {op:"note", page, text, style?:"free_text"|"sticky", near_text?,',
    'at?:{x,y} (PDF points from the top-left), color?} adds a note next to the found text, at a place, or in the',
    'top-left margin; {op:"remove", id:"12R"} removes an annotation by the id read showed. The page content itself',
    'is never changed. Refused, with nothing written, if the file changed since you read it or the text or',
    'annotation is not found. Every change is recorded and can be undone by the user.',
  ].join(' '),
  input: PdfAnnotateInputSchema,
  change: (documents, input, path, bytes) => documents.annotate(path, bytes, input.annotations),
  next: 'Read the file again to see the annotations with their ids.',
})

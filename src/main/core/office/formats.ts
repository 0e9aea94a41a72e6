import type { OfficeFormat } from '../../../shared/protocol'

/** Which Office formats exist, their document family, and what each engine does with them. */

export type OfficeFamily = 'writer' | 'calc' | 'impress'

export const FAMILY_OF: Record<OfficeFormat, OfficeFamily> = {
  docx: 'writer',
  doc: 'writer',
  odt: 'writer',
  rtf: 'writer',
  xlsx: 'calc',
  xls: 'calc',
  ods: 'calc',
  csv: 'calc',
  pptx: 'impress',
  ppt: 'impress',
  odp: 'impress',
}

const EXTENSIONS: Record<string, OfficeFormat> = {
  docx: 'docx',
  docm: 'docx',
  dotx: 'docx',
  doc: 'doc',
  dot: 'doc',
  odt: 'odt',
  ott: 'odt',
  rtf: 'rtf',
  xlsx: 'xlsx',
  xlsm: 'xlsx',
  xltx: 'xlsx',
  xls: 'xls',
  xlt: 'xls',
  ods: 'ods',
  ots: 'ods',
  csv: 'csv',
  pptx: 'pptx',
  pptm: 'pptx',
  potx: 'pptx',
  ppsx: 'pptx',
  ppt: 'ppt',
  pps: 'ppt',
  pot: 'ppt',
  odp: 'odp',
  otp: 'odp',
}

export function formatFromName(name: string): OfficeFormat | null {
  const dot = name.lastIndexOf('.')
  return dot === -1 ? null : (EXTENSIONS[name.slice(dot + 1).toLowerCase()] ?? null)
}

export const OOXML_OF: Record<OfficeFamily, OfficeFormat> = { writer: 'docx', calc: 'xlsx', impress: 'pptx' }
export const ODF_OF: Record<OfficeFamily, OfficeFormat> = { writer: 'odt', calc: 'ods', impress: 'odp' }

/** LibreOffice export filters: PDF per document family, and each format it writes as a new file. */
export const PDF_FILTERS: Record<OfficeFamily | 'draw', string> = {
  writer: 'writer_pdf_Export',
  calc: 'calc_pdf_Export',
  impress: 'impress_pdf_Export',
  draw: 'draw_pdf_Export',
}

export const EXPORT_FILTERS: Partial<Record<OfficeFormat, string>> = {
  docx: 'MS Word 2007 XML',
  xlsx: 'Calc MS Excel 2007 XML',
  pptx: 'Impress MS PowerPoint 2007 XML',
  odt: 'writer8',
  ods: 'calc8',
  odp: 'impress8',
}

/**
 * Import filters for formats LibreOffice cannot load on detection alone. A CSV loaded through UNO
 * without filter options comes back as nothing at all (its import normally asks for them in a
 * dialog), so it is named with the options a person means by "CSV": comma-separated, `"` quotes,
 * UTF-8 (encoding 76), from the first line. Decision: no separator guessing — a semicolon file
 * opens as one column, which is visible, rather than being split by a guess.
 */
export const IMPORT_FILTERS: Partial<Record<OfficeFormat, { readonly name: string; readonly options: string }>> = {
  csv: { name: 'Text - txt - csv (StarCalc)', options: '44,34,76,1' },
}

/**
 * What a conversion may produce from `from`: the OOXML and ODF formats of the same family (never
 * across families — LibreOffice refuses a Writer document as a spreadsheet), never the format itself.
 */
export function conversionTargets(from: OfficeFormat): OfficeFormat[] {
  const family = FAMILY_OF[from]
  return [OOXML_OF[family], ODF_OF[family]].filter((to) => to !== from)
}

export const ALL_FORMATS: OfficeFormat[] = [
  'docx',
  'pptx',
  'xlsx',
  'doc',
  'ppt',
  'xls',
  'odt',
  'ods',
  'odp',
  'rtf',
  'csv',
]
/** Built-in previews: DOCX by the editor's paged view, PPTX by the approximate renderer, sheets by the grid. */
export const BUILTIN_PREVIEW: OfficeFormat[] = ['docx', 'pptx', 'xlsx', 'csv']
export const BUILTIN_EDIT: OfficeFormat[] = ['docx', 'pptx', 'xlsx']
export const ONLYOFFICE_EDIT: OfficeFormat[] = ['docx', 'pptx', 'xlsx', 'odt', 'ods', 'odp']

export {
  openPackage,
  PackageError,
  PACKAGE_LIMITS,
  type OfficePackage,
  type PackageLimit,
  type PackageLimits,
} from './zip'
export { relationshipsOf, mainPart, type Relationship } from './opc'
export {
  editCell,
  listSheets,
  readSheet,
  parseAddress,
  formatAddress,
  columnName,
  parseCellInput,
  type CellInput,
  type CellEditOutcome,
  type CellEditRefusal,
  type SheetInfo,
  type SheetContent,
  type CellValue,
} from './xlsx'
export {
  readSlideTexts,
  editSlideText,
  readShapeFrames,
  setShapeFrame,
  LINE_BREAK,
  type ShapeFrame,
  type SlideFrames,
  type ShapeFrameOutcome,
  type SlideText,
  type ShapeText,
  type SlideEditOutcome,
} from './pptx'
export { editPptx } from './pptx-edit'
export { editXlsx } from './xlsx-edit'
export { readSheetLook, type SheetLook, type CellLook, type CellBorder } from './xlsx-styles'
export { editXlsxStructure, type StructureEdit, type StructureOutcome, type StructureRefusal } from './xlsx-structure'
export { readSlideNotes, editSlideNotes, type SlideNotes, type NotesEditOutcome } from './pptx-notes'
export { scanDocx, scanDocxPackage, DOCX_FEATURE_LABELS, type DocxScan, type DocxLoss, type DocxFeature } from './docx'
export { dedupeMedia } from './media'
export { numberNotesAsWord, type NoteRenumbering } from './docx-notes'
export { normaliseEditorSave } from './docx-save'

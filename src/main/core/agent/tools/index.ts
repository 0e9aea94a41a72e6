import { applyPatchTool } from './apply-patch'
import { bashTool } from './bash'
import type { ToolDefinition } from './define-tool'
import { editTool } from './edit'
import { globTool } from './glob'
import { grepTool } from './grep'
import { listTool } from './list'
import { officeEditTool } from './office-edit'
import { pdfAnnotateTool } from './pdf-annotate'
import { readTool } from './read'
import { taskTool } from './task'
import { writeTool } from './write'

/** The agent's tools; names and parameters are part of the public contract (spec 05 "Tools"). */
export const AGENT_TOOLS: readonly ToolDefinition[] = [
  readTool,
  writeTool,
  editTool,
  applyPatchTool,
  officeEditTool,
  pdfAnnotateTool,
  listTool,
  globTool,
  grepTool,
  bashTool,
  taskTool,
] as readonly ToolDefinition[]

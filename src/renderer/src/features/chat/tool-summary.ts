const SUMMARY_FIELDS = ['file_path', 'command', 'pattern', 'path', 'description'] as const
const MAX_SUMMARY = 160

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function oneLine(text: string): string {
  const first = text.trim().split('\n')[0] ?? ''
  return first.length > MAX_SUMMARY ? `${first.slice(0, MAX_SUMMARY - 1)}…` : first
}

/** What a tool call acts on, in one line: its file, command or pattern (spec 05 parameter names). */
export function toolInputSummary(tool: string, input: unknown): string {
  if (!isRecord(input)) return ''
  if (tool === 'apply_patch' && typeof input.patch === 'string') {
    const files = [...input.patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1]?.trim())
    return oneLine(files.join(', '))
  }
  for (const field of SUMMARY_FIELDS) {
    const value = input[field]
    if (typeof value === 'string' && value.trim() !== '') return oneLine(value)
  }
  return ''
}

/** A tool's input as label/value rows; strings are shown as they are, anything else as JSON. */
export function toolInputRows(input: unknown): Array<{ key: string; value: string }> {
  if (!isRecord(input)) return input === undefined ? [] : [{ key: '', value: JSON.stringify(input, null, 2) }]
  return Object.entries(input).map(([key, value]) => ({
    key,
    value: typeof value === 'string' ? value : JSON.stringify(value, null, 2),
  }))
}

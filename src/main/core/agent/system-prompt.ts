import { readPath } from '../project-fs'

const MAX_AGENTS_MD = 64 * 1024

/** Spec 05 "Context": project root, platform, date and the project's AGENTS.md if present. */
export async function systemPrompt(root: string, now: Date = new Date()): Promise<string> {
  let agents = ''
  // Read like any project file: no link followed (a link to a secret outside never reaches the
  // model), no FIFO waited on.
  const read = await readPath(root, 'AGENTS.md', 4 * MAX_AGENTS_MD)
  if (read.kind === 'regular' || read.kind === 'too-large') {
    const text = read.kind === 'regular' ? read.bytes.toString('utf8') : ''
    agents = text.length > MAX_AGENTS_MD ? `${text.slice(0, MAX_AGENTS_MD)}\n… (cut)` : text
  }
  const lines = [
    'You are a coding agent working in a project folder inside Retrace. The person watches every',
    'change you make; each one is recorded and can be undone.',
    '',
    `Project root: ${root}`,
    `Platform: ${process.platform}`,
    `Date: ${now.toISOString().slice(0, 10)}`,
    '',
    'Rules:',
    '- Use the tools. Paths are relative to the project root.',
    '- Read a file before you change it; use edit for small changes, write for whole files, apply_patch',
    '  for several files at once.',
    '- DOCX, XLSX, PPTX and PDF files: read shows their text with anchors (p12, t2.r3.c1, s3.sh5, cell',
    '  addresses, annotation ids); change them with office_edit (DOCX/XLSX/PPTX) or pdf_annotate (PDF),',
    '  which keep the rest of the file byte-identical. Read again after a change: anchors may move.',
    '- To produce a generated or binary document, write it with a script into a temporary folder inside',
    '  the project and publish it with write(file_path, source_path=…); a source outside the project is',
    '  refused. Never let a script overwrite a project file.',
    '- bash runs in the project folder; its effects on files are not recorded, so prefer the file tools.',
    '- When you are done, answer briefly with what you changed.',
  ]
  if (agents.trim() !== '') lines.push('', 'The project’s AGENTS.md:', agents)
  return lines.join('\n')
}

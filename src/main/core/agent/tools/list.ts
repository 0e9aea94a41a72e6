import { z } from 'zod'
import { defineTool } from './define-tool'
import { walkFromArg } from './walk'

const MAX_ENTRIES = 500

export const listTool = defineTool({
  name: 'list',
  kind: 'read',
  description: [
    'Lists a folder of the project as an indented tree (folders end with "/"), honouring .gitignore and',
    `skipping .git. path is relative to the project root (default: the root). At most ${MAX_ENTRIES} entries;`,
    'the answer says when it was cut — then list a sub-folder or use glob.',
  ].join(' '),
  input: z.object({ path: z.string().optional() }),
  async execute(input, context) {
    const walked = await walkFromArg(context, input.path, { maxEntries: MAX_ENTRIES })
    if (walked.kind === 'answer') return walked.result
    const { start, entries, truncated } = walked
    const prefix = start === '' ? '' : `${start}/`
    const rel = entries.map((e) => ({ ...e, rel: e.path.slice(prefix.length) }))
    // Tree order: each folder's children right under it, folders first.
    rel.sort((a, b) => {
      const as = a.rel.split('/')
      const bs = b.rel.split('/')
      for (let i = 0; i < Math.min(as.length, bs.length); i++) {
        if (as[i] === bs[i]) continue
        const aDir = i < as.length - 1 || a.kind === 'dir'
        const bDir = i < bs.length - 1 || b.kind === 'dir'
        if (aDir !== bDir) return aDir ? -1 : 1
        return (as[i] ?? '') < (bs[i] ?? '') ? -1 : 1
      }
      return as.length - bs.length
    })
    const lines = rel.map((e) => {
      const depth = e.rel.split('/').length - 1
      const name = e.rel.split('/').at(-1) ?? e.rel
      return `${'  '.repeat(depth + 1)}${name}${e.kind === 'dir' ? '/' : e.kind === 'symlink' ? ' -> (link)' : ''}`
    })
    const header = `${start === '' ? '.' : start}/`
    if (lines.length === 0) return { kind: 'ok', output: `${header}\n(empty)` }
    const note = truncated ? `\n… cut at ${MAX_ENTRIES} entries; list a sub-folder for more.` : ''
    return { kind: 'ok', output: `${header}\n${lines.join('\n')}${note}` }
  },
})

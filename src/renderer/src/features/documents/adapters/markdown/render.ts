import katex from 'katex'
import MarkdownIt from 'markdown-it'
import markdownItKatex from '@vscode/markdown-it-katex'
import { tasklist } from '@mdit/plugin-tasklist'
import hljs from 'highlight.js/lib/common'
import katexCss from 'katex/dist/katex.min.css?raw'

/**
 * Markdown → HTML for the preview (spec 09): GitHub-flavoured tables and task lists, KaTeX math,
 * highlighted code. Raw HTML in the source is never passed through (`html: false` escapes it), so
 * nothing in a document can run script or load anything.
 */
const md: MarkdownIt = new MarkdownIt({
  html: false,
  linkify: true,
  typographer: false,
  highlight(code, language) {
    if (language && hljs.getLanguage(language)) {
      try {
        return hljs.highlight(code, { language, ignoreIllegals: true }).value
      } catch {
        // fall through to escaped text
      }
    }
    return ''
  },
})
  .use(markdownItKatex, { katex, throwOnError: false })
  .use(tasklist, { disabled: true })

export function renderMarkdown(source: string): string {
  return md.render(source)
}

// KaTeX's fonts, WOFF2 only: the stylesheet's WOFF/TTF fallbacks are dropped, so the build carries
// one format (every browser Retrace runs in reads WOFF2).
const WOFF2 = import.meta.glob('../../../../../../../node_modules/katex/dist/fonts/*.woff2', {
  query: '?url',
  import: 'default',
  eager: true,
}) as Record<string, string>

let installed = false
/** Installs KaTeX's stylesheet once, its font URLs pointing at the bundled WOFF2 files. */
export function installMathStyles(): void {
  if (installed) return
  installed = true
  const byName = new Map(Object.entries(WOFF2).map(([path, url]) => [path.slice(path.lastIndexOf('/') + 1), url]))
  const css = katexCss.replace(/src:\s*url\(fonts\/([^)]+?\.woff2)\)[^;}]*/g, (_, file: string) => {
    const url = byName.get(file)
    return url ? `src:url(${url}) format("woff2")` : ''
  })
  const style = document.createElement('style')
  style.dataset.retrace = 'katex'
  style.textContent = css
  document.head.append(style)
}

/**
 * A file's icon and tint by name: codicons has generic file-type glyphs (code, media, PDF, archive,
 * JSON, Markdown…); the tint (a CSS class per family) tells families apart at a glance.
 */
export interface FileIcon {
  readonly icon: string
  readonly tint: string
}

const BY_NAME: Record<string, FileIcon> = {
  'package.json': { icon: 'json', tint: 'tint-npm' },
  'package-lock.json': { icon: 'lock', tint: 'tint-npm' },
  '.gitignore': { icon: 'source-control', tint: 'tint-git' },
  '.gitattributes': { icon: 'source-control', tint: 'tint-git' },
  dockerfile: { icon: 'server', tint: 'tint-config' },
  makefile: { icon: 'tools', tint: 'tint-config' },
  license: { icon: 'law', tint: 'tint-doc' },
  'license.md': { icon: 'law', tint: 'tint-doc' },
}

const FAMILIES: Array<[RegExp, FileIcon]> = [
  [/\.(ts|tsx|mts|cts)$/, { icon: 'file-code', tint: 'tint-ts' }],
  [/\.(js|jsx|mjs|cjs)$/, { icon: 'file-code', tint: 'tint-js' }],
  [/\.(py|pyi)$/, { icon: 'file-code', tint: 'tint-py' }],
  [/\.(rs|go|c|h|cc|cpp|hpp|java|kt|swift|rb|php|cs|scala|lua|zig|dart)$/, { icon: 'file-code', tint: 'tint-code' }],
  [/\.(sh|bash|zsh|fish|ps1|bat)$/, { icon: 'terminal', tint: 'tint-shell' }],
  [/\.(html?|vue|svelte|astro)$/, { icon: 'code', tint: 'tint-html' }],
  [/\.(css|scss|sass|less)$/, { icon: 'symbol-color', tint: 'tint-css' }],
  [/\.(json|jsonc|json5)$/, { icon: 'json', tint: 'tint-json' }],
  [/\.(ya?ml|toml|ini|conf|cfg|env|properties|lock)$/, { icon: 'settings', tint: 'tint-config' }],
  [/\.(md|mdx|markdown)$/, { icon: 'markdown', tint: 'tint-doc' }],
  [/\.(txt|rst|adoc|log)$/, { icon: 'note', tint: 'tint-doc' }],
  [/\.(csv|tsv|xlsx?|ods)$/, { icon: 'table', tint: 'tint-data' }],
  [/\.(png|jpe?g|gif|webp|bmp|svg|ico|tiff?|psd|avif)$/, { icon: 'file-media', tint: 'tint-media' }],
  [/\.(mp3|wav|ogg|flac|mp4|webm|mov|mkv)$/, { icon: 'play-circle', tint: 'tint-media' }],
  [/\.pdf$/, { icon: 'file-pdf', tint: 'tint-pdf' }],
  [/\.(docx?|odt|rtf|pptx?|odp)$/, { icon: 'book', tint: 'tint-office' }],
  [/\.(zip|tar|gz|tgz|bz2|xz|7z|rar)$/, { icon: 'file-zip', tint: 'tint-archive' }],
  [/\.(sql|db|sqlite)$/, { icon: 'database', tint: 'tint-data' }],
  [/\.(test|spec)\.[a-z]+$/, { icon: 'beaker', tint: 'tint-test' }],
]

export function fileIcon(path: string): FileIcon {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase()
  const named = BY_NAME[name]
  if (named) return named
  if (/\.(test|spec)\.[a-z]+$/.test(name)) return { icon: 'beaker', tint: 'tint-test' }
  for (const [pattern, icon] of FAMILIES) if (pattern.test(name)) return icon
  return { icon: 'file', tint: 'tint-plain' }
}

import type { ReviewCategory } from '../../../shared/protocol'

/** Files over this many bytes are "Large" whatever their type: reviewing them is a different job. */
export const LARGE_FILE_BYTES = 1024 * 1024

const TEST_PATH = /(^|\/)(tests?|__tests__|spec|specs|e2e)\/|[._-](test|spec)\.[^/.]+$|(^|\/)test_[^/]+\.py$/i
const DOC_EXTENSIONS = /\.(md|mdx|markdown|rst|adoc|txt|org|tex)$/i
const DOC_PATH = /(^|\/)docs?\//i
const CODE_EXTENSIONS =
  /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|py|rb|go|rs|java|kt|kts|scala|swift|c|h|cc|cpp|hpp|cs|m|mm|php|lua|sh|bash|zsh|ps1|sql|r|jl|dart|ex|exs|erl|hs|ml|clj|vue|svelte|css|scss|less|html|json|jsonc|yaml|yml|toml|xml|gradle|cmake|proto|graphql)$/i
const CODE_NAMES = /(^|\/)(Makefile|Dockerfile|Rakefile|Gemfile|CMakeLists\.txt|\.gitignore|\.editorconfig)$/

/**
 * Spec 07 categories by path rules and size, in this precedence: Large, Tests, Docs, Code, Other.
 * A test file is Tests even though it is code; a README under docs/ is Docs.
 */
export function categoryOf(path: string, size: number, diffState: string): ReviewCategory {
  if (size > LARGE_FILE_BYTES || diffState === 'large') return 'large'
  if (TEST_PATH.test(path)) return 'tests'
  if (DOC_EXTENSIONS.test(path) || (DOC_PATH.test(path) && !CODE_EXTENSIONS.test(path))) return 'docs'
  if (CODE_EXTENSIONS.test(path) || CODE_NAMES.test(path)) return 'code'
  return 'other'
}

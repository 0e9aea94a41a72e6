// Lint rules double as the architecture's fence (spec 01): each folder may import only downward.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import reactHooks from 'eslint-plugin-react-hooks'
import prettier from 'eslint-config-prettier'
import globals from 'globals'
import fences from './eslint-rules/module-fences.mjs'
import cycles from './eslint-rules/import-cycles.mjs'
import rendererFences from './eslint-rules/renderer-fences.mjs'

const nodeBuiltins = { group: ['node:*'], message: 'This layer is environment-free or DOM-only: no Node built-ins.' }
const electron = { name: 'electron', message: 'Only src/main/electron and src/preload may import electron.' }
const electronGroup = { group: ['electron/*'], message: 'Only src/main/electron and src/preload may import electron.' }
const mainCode = {
  group: ['**/main/**', '../main/*'],
  message: 'The renderer and shared code never import main-side code.',
}
const rendererCode = { group: ['**/renderer/**'], message: 'Only the renderer imports renderer code.' }
const webHost = {
  group: ['**/web/**', '../web', '../web/*'],
  message: 'The core and the desktop shell never import the browser-mode host.',
}
const electronShell = {
  group: ['**/electron/**', '../electron', '../electron/*'],
  message: 'The core and the web host never import the desktop shell.',
}
const hostingCode = {
  group: ['**/hosting/**', '../hosting', '../hosting/*'],
  message: "The core never imports the shells' shared hosting helpers.",
}
// lru-cache is isomorphic: the renderer's read cache (spec 08) uses it too.
const nodeOnlyPackages = ['ws', 'mime-types'].map((name) => ({
  name,
  message: 'A Node-side package; the renderer and shared code cannot use it.',
}))

export const boundaryRules = {
  shared: { paths: [electron, ...nodeOnlyPackages], patterns: [nodeBuiltins, electronGroup, mainCode, rendererCode] },
  core: { paths: [electron], patterns: [electronGroup, rendererCode, webHost, electronShell, hostingCode] },
  hosting: { paths: [electron], patterns: [electronGroup, rendererCode, webHost, electronShell] },
  web: { paths: [electron], patterns: [electronGroup, rendererCode, electronShell] },
  electron: { paths: [], patterns: [rendererCode, webHost] },
  preload: { paths: [], patterns: [rendererCode, mainCode] },
  renderer: { paths: [electron, ...nodeOnlyPackages], patterns: [nodeBuiltins, electronGroup, mainCode] },
}

const restrict = (rules) => ({ 'no-restricted-imports': ['error', rules] })

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-exports': ['error', { restrictDefaultExports: { direct: false } }],
    },
  },
  { files: ['src/shared/**/*.ts'], rules: restrict(boundaryRules.shared) },
  { files: ['src/main/core/**/*.ts'], rules: restrict(boundaryRules.core) },
  { files: ['src/main/hosting/**/*.ts'], rules: restrict(boundaryRules.hosting) },
  {
    files: ['src/main/core/**/*.ts', 'src/renderer/src/features/**/*.{ts,tsx}'],
    // Tests drive a module through the core's public entry points, whatever their folder.
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    plugins: { retrace: fences },
    rules: { 'retrace/module-fences': 'error' },
  },
  // Issue 24: no file-level import cycle in the engine, the preload or the shared code (the
  // renderer's own cycle rule, which also sees feature-level cycles, lives in its block below).
  {
    files: ['src/main/**/*.ts', 'src/shared/**/*.ts', 'src/preload/**/*.ts'],
    ignores: ['**/*.test.ts'],
    plugins: { 'retrace-main': cycles },
    rules: { 'retrace-main/no-import-cycle': ['error', { roots: ['src/main', 'src/shared', 'src/preload'] }] },
  },
  // Issue 24: a source file over 600 lines is two files. The UI catalogues are data (one message
  // per line), not code, so they are the one exception.
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts', '**/*.test.tsx', 'src/renderer/src/i18n/en.ts', 'src/renderer/src/i18n/zh-CN.ts'],
    rules: { 'max-lines': ['error', { max: 600, skipBlankLines: false, skipComments: false }] },
  },
  {
    // The renderer's own fence: its layer table, the feature order, and no import cycle between
    // files or features (eslint-rules/renderer-fences.mjs; proven live by test/layering.test.ts).
    files: ['src/renderer/src/**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    plugins: { 'retrace-renderer': rendererFences },
    rules: { 'retrace-renderer/renderer-layers': 'error', 'retrace-renderer/renderer-cycles': 'error' },
  },
  { files: ['src/main/web/**/*.ts'], rules: restrict(boundaryRules.web) },
  { files: ['src/main/electron/**/*.ts'], rules: restrict(boundaryRules.electron) },
  { files: ['src/preload/**/*.ts'], rules: restrict(boundaryRules.preload) },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules, ...restrict(boundaryRules.renderer) },
  },
  prettier,
)

import { ESLint } from 'eslint'
import { describe, expect, test } from 'vitest'
import { CORE_LAYERS, layerCycle } from '../eslint-rules/module-fences.mjs'

/**
 * The folder layering of spec 01 is enforced by lint; these prove the fence is live by linting
 * deliberate violations placed (virtually) in each layer.
 */
const eslint = new ESLint({ cwd: process.cwd() })

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath })
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'retrace/module-fences')
    .map((m) => m.message)
}

async function importCycles(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath })
  return (result?.messages ?? []).filter((m) => m.ruleId === 'retrace-main/no-import-cycle').map((m) => m.message)
}

describe('layer boundaries', () => {
  test.each([
    ['src/main/core/files/violation.ts', "import { app } from 'electron'\nexport const x = app\n"],
    [
      'src/main/core/files/violation.ts',
      "import { startWebHost } from '../../web/server'\nexport const x = startWebHost\n",
    ],
    [
      'src/main/web/violation.ts',
      "import { secureWebPreferences } from '../electron/window'\nexport const x = secureWebPreferences\n",
    ],
    ['src/renderer/src/violation.ts', "import { readFileSync } from 'node:fs'\nexport const x = readFileSync\n"],
    ['src/renderer/src/violation.ts', "import { createCore } from '../../main/core'\nexport const x = createCore\n"],
    ['src/renderer/src/violation.ts', "import { ipcRenderer } from 'electron'\nexport const x = ipcRenderer\n"],
    ['src/shared/violation.ts', "import { join } from 'node:path'\nexport const x = join\n"],
    ['src/shared/violation.ts', "import { WebSocketServer } from 'ws'\nexport const x = WebSocketServer\n"],
    ['src/preload/violation.ts', "import { createCore } from '../main/core'\nexport const x = createCore\n"],
    // Inside the engine: a lower module never imports a higher one, nor the composition root.
    ['src/main/core/journal/violation.ts', "import { planRestore } from '../restore'\nexport const x = planRestore\n"],
    ['src/main/core/store/violation.ts', "import { createCore } from '..'\nexport const x = createCore\n"],
    ['src/main/core/agent/violation.ts', "import { createCore } from '../index'\nexport const x = createCore\n"],
    // Modules and renderer features meet only at their index.ts.
    [
      'src/main/core/review/violation.ts',
      "import { markSettled } from '../journal/records'\nexport const x = markSettled\n",
    ],
    [
      'src/renderer/src/features/chat/violation.ts',
      "import { ReviewPane } from '../review/ReviewPane'\nexport const x = ReviewPane\n",
    ],
    ['src/main/core/violation.ts', "import { startWebHost } from '../hosting'\nexport const x = startWebHost\n"],
  ])('%s: a forbidden import fails lint', async (filePath, code) => {
    expect(await restrictedImports(filePath, code)).not.toEqual([])
  })

  test.each([
    ['src/main/core/files/allowed.ts', "import { readFileSync } from 'node:fs'\nexport const x = readFileSync\n"],
    ['src/main/electron/allowed.ts', "import { app } from 'electron'\nexport const x = app\n"],
    ['src/renderer/src/allowed.ts', "import { ACTIONS } from '../../shared/protocol'\nexport const x = ACTIONS\n"],
    [
      'src/main/core/restore/allowed.ts',
      "import { queryReceipts } from '../journal'\nexport const x = queryReceipts\n",
    ],
  ])('%s: an allowed import passes', async (filePath, code) => {
    expect(await restrictedImports(filePath, code)).toEqual([])
  })
})

describe('import cycles (issue 24)', () => {
  test('a file that imports a file importing it back fails lint, naming the chain', async () => {
    // journal/index.ts re-exports temp-names.ts: importing the index back from it closes a cycle.
    const messages = await importCycles(
      'src/main/core/journal/temp-names.ts',
      "import { createJournal } from './index'\nexport const x = createJournal\n",
    )
    expect(messages).toEqual([
      'Import cycle: src/main/core/journal/temp-names.ts → src/main/core/journal/index.ts → src/main/core/journal/temp-names.ts.',
    ])
  })

  test('a cycle through several files and a type-only import fails too', async () => {
    // store/index.ts → store/database.ts; database.ts importing the store's index closes it.
    const messages = await importCycles(
      'src/main/core/store/database.ts',
      "import type { BlobStore } from '.'\nexport type X = BlobStore\n",
    )
    expect(messages).toHaveLength(1)
    expect(messages[0]).toMatch(
      /^Import cycle: src\/main\/core\/store\/database\.ts → src\/main\/core\/store\/index\.ts → /,
    )
  })

  test('an import that closes no cycle passes', async () => {
    expect(
      await importCycles(
        'src/main/core/journal/temp-names.ts',
        "import { statement } from '../store'\nexport const x = statement\n",
      ),
    ).toEqual([])
  })

  test("the engine's layer table is a strict order, and a table with a cycle is caught", () => {
    expect(layerCycle(CORE_LAYERS)).toBeNull()
    expect(layerCycle({ a: ['b'], b: ['c'], c: ['a'] })).toEqual(['a', 'b', 'c', 'a'])
  })
})

describe('file size (issue 24)', () => {
  test('a main-side file over 600 lines fails lint; 600 lines pass', async () => {
    const lines = (count: number) => Array.from({ length: count }, (_, i) => `export const line${i} = ${i}\n`).join('')
    const ruleIds = async (code: string) => {
      const [result] = await eslint.lintText(code, { filePath: 'src/main/core/journal/long.ts' })
      return (result?.messages ?? []).map((m) => m.ruleId)
    }
    expect(await ruleIds(lines(601))).toContain('max-lines')
    expect(await ruleIds(lines(600))).not.toContain('max-lines')
  })
})

/** What the renderer's own fence (eslint-rules/renderer-fences.mjs) says about one file, by rule. */
async function rendererFence(filePath: string, code: string): Promise<Array<{ rule: string; message: string }>> {
  const [result] = await eslint.lintText(code, { filePath })
  return (result?.messages ?? [])
    .filter((m) => m.ruleId?.startsWith('retrace-renderer/') || m.ruleId === 'retrace/module-fences')
    .map((m) => ({ rule: m.ruleId ?? '', message: m.message }))
}

describe('renderer layers: app → features → ui → transport / i18n, features in a declared order', () => {
  test.each([
    // Chat and Review are peers: neither imports the other, in either direction, even through index.ts.
    [
      'src/renderer/src/features/chat/violation.ts',
      "import { ReviewPane } from '../review'\nexport const x = ReviewPane\n",
    ],
    [
      'src/renderer/src/features/review/violation.ts',
      "import { ChatPane } from '../chat'\nexport const x = ChatPane\n",
    ],
    // The session store sits below both and imports neither.
    [
      'src/renderer/src/features/session/violation.ts',
      "import { reviewTurn } from '../review'\nexport const x = reviewTurn\n",
    ],
    // A feature never imports the workbench above it; ui/ never imports a feature.
    ['src/renderer/src/features/chat/violation.ts', "import { App } from '../../app/App'\nexport const x = App\n"],
    // No exception is left: the client's context is ui/'s, and app/ has no copy of it to import.
    [
      'src/renderer/src/features/explorer/violation.ts',
      "import { useClient } from '../../app/client-context'\nexport const x = useClient\n",
    ],
    [
      'src/renderer/src/ui/violation.ts',
      "import { useSessions } from '../features/session'\nexport const x = useSessions\n",
    ],
    ['src/renderer/src/transport/violation.ts', "import { useStore } from '../ui/store'\nexport const x = useStore\n"],
    // The workbench reaches a feature only through its index.ts.
    [
      'src/renderer/src/app/violation.ts',
      "import { ChatPane } from '../features/chat/ChatPane'\nexport const x = ChatPane\n",
    ],
  ])('%s: a forbidden import fails lint', async (filePath, code) => {
    expect(
      (await rendererFence(filePath, code)).filter((m) => m.rule === 'retrace-renderer/renderer-layers'),
    ).not.toEqual([])
  })

  test.each([
    [
      'src/renderer/src/features/chat/allowed.ts',
      "import { useTranscript } from '../session'\nexport const x = useTranscript\n",
    ],
    [
      'src/renderer/src/features/review/allowed.ts',
      "import { useTurnsWithChanges } from '../session'\nexport const x = useTurnsWithChanges\n",
    ],
    [
      'src/renderer/src/features/chat/allowed.ts',
      "import { DiffView } from '../../ui/diff'\nexport const x = DiffView\n",
    ],
    ['src/renderer/src/app/allowed.ts', "import { ChatPane } from '../features/chat'\nexport const x = ChatPane\n"],
    [
      'src/renderer/src/features/explorer/allowed.ts',
      "import { useClient } from '../../ui/client-context'\nexport const x = useClient\n",
    ],
  ])('%s: an allowed import passes', async (filePath, code) => {
    expect(await rendererFence(filePath, code)).toEqual([])
  })
})

describe('renderer import cycles fail lint', () => {
  test('a feature that imports one above it that imports it back: a feature-level cycle', async () => {
    // chat imports the session store on disk; the store importing chat closes the loop.
    const messages = await rendererFence(
      'src/renderer/src/features/session/violation.ts',
      "import { ChatPane } from '../chat'\nexport const x = ChatPane\n",
    )
    expect(messages).toContainEqual({
      rule: 'retrace-renderer/renderer-cycles',
      message: expect.stringContaining('Import cycle between renderer features: session → chat → session'),
    })
  })

  test('two files of one layer that import each other: a file-level cycle', async () => {
    // transport/index.ts imports request-client.ts; request-client.ts importing the index closes the loop.
    const messages = await rendererFence(
      'src/renderer/src/transport/request-client.ts',
      "import { createIpcChannel } from './index'\nexport const x = createIpcChannel\n",
    )
    expect(messages).toEqual([
      {
        rule: 'retrace-renderer/renderer-cycles',
        message: expect.stringContaining(
          'Import cycle between files: transport/request-client.ts → transport/index.ts → transport/request-client.ts',
        ),
      },
    ])
  })

  test('a type-only import makes no cycle: it is gone at build time', async () => {
    const messages = await rendererFence(
      'src/renderer/src/transport/request-client.ts',
      "import type { FrameChannel } from './index'\nexport type X = FrameChannel\n",
    )
    expect(messages).toEqual([])
  })
})

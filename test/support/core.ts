import { randomUUID } from 'node:crypto'
import { realpathSync } from 'node:fs'
import { afterEach } from 'vitest'
import { createCore, type AgentOptions, type Core, type CoreOptions, type Host } from '../../src/main/core'
import type { ResponseEnvelope } from '../../src/shared/protocol'
import { tempDir } from './temp'

const cores: Core[] = []
afterEach(() => {
  for (const core of cores.splice(0)) core.dispose()
})

export interface TestHostLog {
  readonly entries: Array<{ level: string; message: string; fields?: Record<string, unknown> }>
}

export function testHost(overrides: Partial<Host> = {}): Host & TestHostLog {
  const entries: TestHostLog['entries'] = []
  return {
    shell: 'browser',
    appVersion: '0.0.0-test',
    log: (level, message, fields) => entries.push(fields ? { level, message, fields } : { level, message }),
    entries,
    ...overrides,
  }
}

export function startCore(
  options: {
    dataDir?: string
    host?: Host
    agent?: AgentOptions
    reviewDiffBudgetMs?: number
    reviewDocumentCountsBudgetMs?: number
    restoreDocumentBudgetMs?: number
    reviewPinQuotaBytes?: number
    reviewSnapshotRows?: number
    office?: CoreOptions['office']
    contentSearch?: CoreOptions['contentSearch']
    documentLimits?: CoreOptions['documentLimits']
  } = {},
): Core {
  const core = createCore({
    dataDir: options.dataDir ?? tempDir('retrace-data-'),
    host: options.host ?? testHost(),
    // Tests never probe the machine's own Ollama or read its real API keys.
    agent: { env: {}, ollamaUrl: null, ...options.agent },
    ...(options.reviewDiffBudgetMs !== undefined ? { reviewDiffBudgetMs: options.reviewDiffBudgetMs } : {}),
    ...(options.reviewDocumentCountsBudgetMs !== undefined
      ? { reviewDocumentCountsBudgetMs: options.reviewDocumentCountsBudgetMs }
      : {}),
    ...(options.restoreDocumentBudgetMs !== undefined
      ? { restoreDocumentBudgetMs: options.restoreDocumentBudgetMs }
      : {}),
    ...(options.reviewPinQuotaBytes !== undefined ? { reviewPinQuotaBytes: options.reviewPinQuotaBytes } : {}),
    ...(options.reviewSnapshotRows !== undefined ? { reviewSnapshotRows: options.reviewSnapshotRows } : {}),
    ...(options.office !== undefined ? { office: options.office } : {}),
    ...(options.contentSearch !== undefined ? { contentSearch: options.contentSearch } : {}),
    ...(options.documentLimits !== undefined ? { documentLimits: options.documentLimits } : {}),
  })
  cores.push(core)
  return core
}

export function request(action: string, payload: unknown, owner: Record<string, string> = {}) {
  return { request_id: randomUUID(), action, owner, payload }
}

/** Opens `root` as a project and returns a helper that sends requests owned by it. */
export async function openProject(core: Core, root: string) {
  const response = await core.handle(request('project.open', { path: root }))
  if (response.status !== 'ok') throw new Error(`project.open failed: ${JSON.stringify(response.error)}`)
  const result = response.result as { project_id: string; root: string }
  return {
    projectId: result.project_id,
    root: realpathSync(root),
    call: (action: string, payload: unknown): Promise<ResponseEnvelope> =>
      core.handle(request(action, payload, { project_id: result.project_id })),
  }
}

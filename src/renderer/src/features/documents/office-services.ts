import type { ActionName, PayloadOf, ResultOf } from '../../../../shared/protocol'
import type { RequestClient, RequestOutcome } from '../../transport'
import type { OfficeServices, ServiceOutcome } from './adapters/office/services'

/** Conversions and previews run LibreOffice, which can take a while on a busy machine. */
const CONVERSION_TIMEOUT_MS = 180_000

/**
 * The Office adapter's window onto the engine, bound to one project file: every request names
 * this path, so the adapter can ask about its own document and nothing else.
 */
export function officeServices(
  client: RequestClient,
  projectId: string,
  path: string,
  openFile: (path: string) => void,
): OfficeServices {
  const owner = { project_id: projectId }
  async function call<A extends ActionName>(
    action: A,
    payload: PayloadOf<A>,
    options: { signal?: AbortSignal | undefined; timeoutMs?: number; key?: boolean } = {},
  ): Promise<ServiceOutcome<ResultOf<A>>> {
    const outcome = await client.request(action, payload, {
      owner,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.key ? { idempotencyKey: crypto.randomUUID() } : {}),
    })
    return toService(outcome)
  }
  return {
    status: (signal) => call('office.status', {}, { signal }),
    inspect: (signal) => call('office.inspect', { path }, { signal }),
    async preview(signal) {
      const outcome = await call('office.preview', { path }, { signal, timeoutMs: CONVERSION_TIMEOUT_MS })
      if (outcome.kind !== 'ok') return outcome
      const answer = outcome.result
      if (answer.kind === 'unavailable') {
        return { kind: 'ok', result: { kind: 'unavailable', reason: answer.reason, message: answer.message } }
      }
      try {
        const response = await fetch(answer.pdf.url, { credentials: 'same-origin', ...(signal ? { signal } : {}) })
        if (!response.ok) return { kind: 'error', code: 'fetch-failed', message: `HTTP ${response.status}` }
        const bytes = new Uint8Array(await response.arrayBuffer())
        return { kind: 'ok', result: { kind: 'pdf', bytes, revision: answer.revision, cached: answer.cached } }
      } catch (error) {
        if (signal?.aborted) return { kind: 'error', code: 'cancelled', message: 'cancelled' }
        return { kind: 'error', code: 'fetch-failed', message: String(error) }
      }
    },
    async convert(to, signal) {
      const outcome = await call(
        'office.convert',
        { path, to },
        { signal, timeoutMs: CONVERSION_TIMEOUT_MS, key: true },
      )
      return outcome.kind === 'ok' ? { kind: 'ok', result: { path: outcome.result.path } } : outcome
    },
    async openExternal() {
      const outcome = await call('office.open_external', { path })
      return outcome.kind === 'ok' ? { kind: 'ok', result: { opened: true } } : outcome
    },
    install: () => call('office.install', {}, { key: true }),
    onInstallProgress: (listener) => client.on('office.install.progress', (data) => listener(data), { projectId }),
    installPack: () => call('office.pack_install', {}, { key: true }),
    onPackProgress: (listener) => client.on('office.pack.progress', (data) => listener(data), { projectId }),
    onProgress: (listener) =>
      client.on(
        'office.progress',
        (data) => {
          if (data.path === path) listener(data)
        },
        { projectId },
      ),
    openFile,
  }
}

function toService<T>(outcome: RequestOutcome<T>): ServiceOutcome<T> {
  switch (outcome.kind) {
    case 'ok':
      return { kind: 'ok', result: outcome.result }
    case 'error':
      return {
        kind: 'error',
        code: outcome.error.code,
        message: outcome.error.message,
        ...(outcome.error.details ? { details: outcome.error.details } : {}),
      }
    default:
      return { kind: 'error', code: outcome.kind, message: outcome.kind }
  }
}

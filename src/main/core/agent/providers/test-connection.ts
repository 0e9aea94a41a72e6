import type { ResultOf } from '../../../../shared/protocol'
import { DEFAULT_BASE_URLS, type ProviderConfig } from './types'

type TestResult = ResultOf<'settings.test_provider'>

/**
 * Lists the provider's models: proves the URL, the key and (when listed) the model without spending
 * tokens. Both OpenAI-compatible servers (OpenAI, Ollama, LM Studio, llama.cpp, vLLM) and Anthropic
 * answer `GET {base}/models`.
 */
export async function testConnection(
  config: ProviderConfig,
  apiKey: string | undefined,
  options: { timeoutMs?: number } = {},
): Promise<TestResult> {
  if (config.key.kind !== 'none' && apiKey === undefined) {
    return {
      status: 'failed',
      reason: 'no-key',
      message:
        config.key.kind === 'env'
          ? `The environment variable ${config.key.name} is not set in the shell that started Retrace.`
          : 'The stored key cannot be read on this machine; enter it again.',
    }
  }
  const base = (config.base_url || DEFAULT_BASE_URLS[config.kind]).replace(/\/+$/, '')
  const headers: Record<string, string> = { accept: 'application/json' }
  if (config.kind === 'anthropic') {
    headers['anthropic-version'] = '2023-06-01'
    if (apiKey) headers['x-api-key'] = apiKey
  } else if (apiKey) {
    headers.authorization = `Bearer ${apiKey}`
  }
  let response: Response
  try {
    response = await fetch(`${base}/models`, { headers, signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) })
  } catch (error) {
    return {
      status: 'failed',
      reason: 'unreachable',
      message: `Could not reach ${base}: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}.`,
    }
  }
  if (response.status === 401 || response.status === 403) {
    return {
      status: 'failed',
      reason: 'unauthorized',
      http_status: response.status,
      message: `${base} refused the key (HTTP ${response.status}).`,
    }
  }
  if (response.status === 404) {
    return {
      status: 'failed',
      reason: 'not-found',
      http_status: 404,
      message: `${base}/models does not exist; check the base URL (it usually ends in /v1).`,
    }
  }
  if (!response.ok) {
    return {
      status: 'failed',
      reason: 'http-error',
      http_status: response.status,
      message: `${base} answered HTTP ${response.status}.`,
    }
  }
  let body: unknown
  try {
    body = await response.json()
  } catch {
    return { status: 'failed', reason: 'bad-response', message: `${base}/models did not answer JSON.` }
  }
  const data = (body as { data?: unknown }).data
  if (!Array.isArray(data)) {
    return { status: 'failed', reason: 'bad-response', message: `${base}/models answered without a model list.` }
  }
  const models = data
    .map((entry) => (entry as { id?: unknown }).id)
    .filter((id): id is string => typeof id === 'string')
    .slice(0, 500)
  return { status: 'ok', models, model_listed: models.includes(config.model) }
}

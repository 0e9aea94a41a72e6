import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModel } from 'ai'
import { DEFAULT_BASE_URLS, type ProviderConfig } from './types'

/** The AI SDK client for a provider; `apiKey` is already resolved (or undefined for keyless local servers). */
export function languageModelFor(config: ProviderConfig, apiKey: string | undefined): LanguageModel {
  const baseURL = (config.base_url || DEFAULT_BASE_URLS[config.kind]).replace(/\/+$/, '')
  switch (config.kind) {
    case 'openai-compatible':
      return createOpenAICompatible({ name: config.name || 'openai-compatible', baseURL, apiKey, includeUsage: true })(
        config.model,
      )
    case 'anthropic':
      // An explicit key (possibly empty) keeps the SDK from reading ANTHROPIC_API_KEY behind our back.
      return createAnthropic({ baseURL, apiKey: apiKey ?? '' })(config.model)
  }
}

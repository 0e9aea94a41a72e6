export { createAgentRuntime, type AgentRuntime } from './runtime'
export { DEFAULT_LOOP_SETTINGS, type LoopSettings } from './loop'
export { createProviderSettings, testConnection, type ProviderSettings, type SecretStore } from './providers'
export { createAgentModule, type AgentModule } from './module'

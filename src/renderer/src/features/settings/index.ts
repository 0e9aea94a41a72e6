export { SettingsPanel } from './SettingsPanel'
export { useProviders } from './use-providers'

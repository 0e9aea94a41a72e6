export { SettingsPanel } from './SettingsPanel'

export { createCodePort, createRestoreModule, type RestoreModule } from './module'
export { turnUndone } from './plan-restore'
export type { CommandSnapshots } from './plan-commands'

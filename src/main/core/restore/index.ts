export { createCodePort, createRestoreModule, type RestoreModule } from './module'
export { turnUndone } from './plan-turn'
export type { CommandSnapshots } from './plan-commands'

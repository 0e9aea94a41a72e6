export { Explorer, type ExplorerHandle } from './Explorer'

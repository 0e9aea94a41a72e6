export { Explorer } from './Explorer'

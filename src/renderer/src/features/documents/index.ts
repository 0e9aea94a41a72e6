export { FileViewer } from './FileViewer'

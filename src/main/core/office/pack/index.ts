// The LibreOffice WebAssembly pack (issue 27): pin, install store, worker-process converter, and
// the service the Office module composes them into.
export { loadPackPin, type PackPin, type PackPinState } from './pin'
export { createPackStore, PACK_REQUIRED_FILES, type InstalledPack, type PackStore } from './install'
export { createPackConverter, PACK_DEFAULTS, type PackConverterOptions } from './converter'
export { createPackService, type PackService } from './service'

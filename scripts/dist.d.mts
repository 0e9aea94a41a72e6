/** True when electron-builder failed because a download (Electron, packaging tools) could not be fetched. */
export function isDownloadFailure(error: unknown): boolean
/** The one sentence `npm run dist` ends with when that happens. */
export function downloadFailureSentence(platform?: string, arch?: string): string

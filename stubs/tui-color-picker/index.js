// Empty stand-in for tui-color-picker, resolved for the renderer bundle only (electron.vite.config.ts):
// tui-image-editor requires it for its built-in UI, which Retrace does not use, and its webpack
// global shim calls `new Function` — refused by the app's CSP (no 'unsafe-eval').
module.exports = {
  create() {
    throw new Error('tui-color-picker is not bundled')
  },
}

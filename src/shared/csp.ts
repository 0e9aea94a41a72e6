/**
 * The app origin's Content Security Policy (spec 11), sent as a response header by both shells.
 * `style-src 'unsafe-inline'` is there because Monaco sets inline styles on its own DOM nodes and
 * injects per-theme style elements; no script may be inline. `frame-src` names only the Office
 * origin the shell serves (browser mode's second port, `retrace-office://bundle` on the desktop).
 */
export function appContentSecurityPolicy(options: { officeOrigin?: string } = {}): string {
  const directives: Array<[string, string]> = [
    ['default-src', "'self'"],
    ['script-src', "'self' 'wasm-unsafe-eval'"],
    ['worker-src', "'self' blob:"],
    ['connect-src', "'self' blob:"],
    ['img-src', "'self' data: blob:"],
    ['font-src', "'self'"],
    ['media-src', "'self' blob:"],
    ['style-src', "'self' 'unsafe-inline'"],
    ['object-src', "'none'"],
    ['base-uri', "'none'"],
    ['form-action', "'none'"],
    ['frame-src', options.officeOrigin ?? "'none'"],
    // No other page may frame the app (clickjacking of its approve and restore buttons).
    ['frame-ancestors', "'none'"],
  ]
  return directives.map(([name, value]) => `${name} ${value}`).join('; ')
}

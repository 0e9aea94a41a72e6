import type { OfficeFormat } from '../../../../../../shared/protocol'

/**
 * The message contract between Retrace and the ONLYOFFICE bundle's entry page (pinned with the
 * bundle; the bundle's page wraps the CryptPad-style `DocsAPI.DocEditor` with its local mock
 * server and x2t, and speaks only this). Every message names the channel, the instance id the
 * parent put in the page's URL and, for answers, the request id it answers. The parent accepts a
 * message only from the bundle's origin, from its own iframe's window, for its current instance,
 * and answers only to requests it still waits for; the page does the same for the parent.
 *
 *   page → parent  { channel, instance, type: 'ready', version }
 *   parent → page  { channel, instance, request, type: 'open', format, bytes, readOnly, locale, macros: false, plugins: false }
 *   page → parent  { channel, instance, request, type: 'opened' } | { …, type: 'failed', message }
 *   page → parent  { channel, instance, type: 'changed' }            (the person edited)
 *   parent → page  { channel, instance, request, type: 'export' }
 *   page → parent  { channel, instance, request, type: 'exported', bytes } | { …, type: 'failed', message }
 */
export const CHANNEL = 'retrace-office/1'

export type EngineState =
  | { readonly kind: 'loading-engine' }
  | { readonly kind: 'opening' }
  | { readonly kind: 'ready' }
  | { readonly kind: 'failed'; readonly message: string }

export interface OnlyOfficeOptions {
  readonly origin: string
  readonly entry: string
  readonly format: OfficeFormat
  readonly readOnly: boolean
  readonly locale: string
  readonly title: string
  /** Start-up deadline: from creating the frame to the document shown (spec 10). */
  readonly startupMs?: number
  readonly onChanged: () => void
  readonly onState: (state: EngineState) => void
}

interface Pending {
  readonly type: 'open' | 'export'
  resolve(data: Record<string, unknown>): void
  reject(error: Error): void
}

const STARTUP_MS = 60_000
const EXPORT_MS = 60_000

/**
 * The bundle's editor in an iframe on its own origin. It lives in a slot the adapter owns (not in
 * React's tree), so React re-renders and mode switches never move or rebuild it — moving an iframe
 * reloads it, and with it the person's undo history.
 */
export class OnlyOfficeHost {
  private frame: HTMLIFrameElement | null = null
  private instance = ''
  private readonly pending = new Map<string, Pending>()
  private controller: AbortController | null = null
  private state: EngineState = { kind: 'loading-engine' }
  /** The bytes the current instance was opened with (the view restarts it when they are stale). */
  openedWith: Uint8Array | null = null

  constructor(
    private readonly slot: HTMLElement,
    private readonly options: OnlyOfficeOptions,
  ) {}

  get current(): EngineState {
    return this.state
  }

  /** Creates the frame (once per attempt) and opens `bytes` in it. */
  async start(bytes: Uint8Array): Promise<void> {
    this.stop()
    this.openedWith = bytes
    const controller = new AbortController()
    this.controller = controller
    this.instance = crypto.randomUUID()
    this.setState({ kind: 'loading-engine' })
    // The deadline starts before activation, so a page that never answers cannot hang the tab.
    const deadline = setTimeout(
      () => controller.abort(new Error('The editor did not start in time.')),
      this.options.startupMs ?? STARTUP_MS,
    )
    try {
      const ready = this.waitFor('ready', controller.signal)
      const frame = document.createElement('iframe')
      frame.className = 'office-engine-frame'
      frame.title = this.options.title
      // Its own origin already isolates it; the sandbox also refuses popups, top navigation and forms.
      frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-downloads')
      frame.referrerPolicy = 'no-referrer'
      const parent = encodeURIComponent(window.location.origin)
      frame.src = `${this.options.origin}/${this.options.entry}#instance=${this.instance}&parent=${parent}`
      this.frame = frame
      this.slot.append(frame)
      window.addEventListener('message', this.onMessage)
      await ready
      this.setState({ kind: 'opening' })
      const copy = bytes.slice().buffer
      await this.request(
        'open',
        {
          format: this.options.format,
          bytes: copy,
          readOnly: this.options.readOnly,
          locale: this.options.locale,
          macros: false,
          plugins: false,
        },
        controller.signal,
        [copy],
      )
      this.setState({ kind: 'ready' })
    } catch (error) {
      if (this.controller !== controller) return
      const reason = controller.signal.reason
      const message = reason instanceof Error ? reason.message : error instanceof Error ? error.message : String(error)
      this.setState({ kind: 'failed', message })
      // A failed instance never stays attached to the document.
      this.removeFrame()
    } finally {
      clearTimeout(deadline)
    }
  }

  /** The document as the editor holds it now (its export; x2t converts back to OOXML). */
  async export(): Promise<Uint8Array> {
    if (this.state.kind !== 'ready' || !this.controller) throw new Error('The editor is not ready.')
    const signal = AbortSignal.any([this.controller.signal, AbortSignal.timeout(EXPORT_MS)])
    const answer = await this.request('export', {}, signal)
    const bytes = answer.bytes
    if (!(bytes instanceof ArrayBuffer)) throw new Error('The editor answered without a document.')
    return new Uint8Array(bytes)
  }

  setVisible(visible: boolean): void {
    this.slot.hidden = !visible
  }

  /** Cancels a pending start (the availability request and activation) and removes the frame. */
  destroy(): void {
    this.stop()
  }

  private stop() {
    this.controller?.abort(new Error('cancelled'))
    this.controller = null
    for (const pending of this.pending.values()) pending.reject(new Error('cancelled'))
    this.pending.clear()
    this.removeFrame()
  }

  private removeFrame() {
    window.removeEventListener('message', this.onMessage)
    this.frame?.remove()
    this.frame = null
  }

  private setState(state: EngineState) {
    this.state = state
    this.options.onState(state)
  }

  private readyWaiter: ((data: Record<string, unknown>) => void) | null = null

  private waitFor(type: 'ready', signal: AbortSignal): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const abort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'))
      if (signal.aborted) return abort()
      signal.addEventListener('abort', abort, { once: true })
      this.readyWaiter = (data) => {
        signal.removeEventListener('abort', abort)
        this.readyWaiter = null
        if (data.type === type) resolve(data)
      }
    })
  }

  private request(
    type: 'open' | 'export',
    body: Record<string, unknown>,
    signal: AbortSignal,
    transfer: Transferable[] = [],
  ): Promise<Record<string, unknown>> {
    const target = this.frame?.contentWindow
    if (!target) return Promise.reject(new Error('The editor is gone.'))
    const request = crypto.randomUUID()
    return new Promise((resolve, reject) => {
      const abort = () => {
        this.pending.delete(request)
        reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'))
      }
      if (signal.aborted) return abort()
      signal.addEventListener('abort', abort, { once: true })
      this.pending.set(request, {
        type,
        resolve: (data) => {
          signal.removeEventListener('abort', abort)
          resolve(data)
        },
        reject: (error) => {
          signal.removeEventListener('abort', abort)
          reject(error)
        },
      })
      target.postMessage(
        { channel: CHANNEL, instance: this.instance, request, type, ...body },
        this.options.origin,
        transfer,
      )
    })
  }

  private readonly onMessage = (event: MessageEvent) => {
    // Only the bundle's origin, only our own frame, only this instance.
    if (event.origin !== this.options.origin || !this.frame || event.source !== this.frame.contentWindow) return
    const data: unknown = event.data
    if (typeof data !== 'object' || data === null) return
    const message = data as Record<string, unknown>
    if (message.channel !== CHANNEL || message.instance !== this.instance) return
    switch (message.type) {
      case 'ready':
        this.readyWaiter?.(message)
        return
      case 'changed':
        if (this.state.kind === 'ready' && !this.options.readOnly) this.options.onChanged()
        return
      case 'opened':
      case 'exported':
      case 'failed': {
        const id = message.request
        const pending = typeof id === 'string' ? this.pending.get(id) : undefined
        // An answer to nothing we asked (or of the wrong kind) is dropped.
        if (!pending || (message.type === 'opened' && pending.type !== 'open')) return
        if (message.type === 'exported' && pending.type !== 'export') return
        this.pending.delete(id as string)
        if (message.type === 'failed') pending.reject(new Error(String(message.message ?? 'The editor failed.')))
        else pending.resolve(message)
        return
      }
      default:
        return
    }
  }
}

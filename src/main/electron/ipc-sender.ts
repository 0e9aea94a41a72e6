import { isTrustedOrigin, type TrustedOrigins } from './navigation'

export interface SenderFacts {
  readonly webContentsId: number
  /** `senderFrame` is null when the frame navigated away or was destroyed. */
  readonly frame: { readonly url: string; readonly isMainFrame: boolean } | null
}

/**
 * Spec 11: an IPC message is served only when it comes from a window we created, from its main
 * frame (not an iframe), and from our own origin.
 */
export function isTrustedSender(
  sender: SenderFacts,
  knownWebContents: ReadonlySet<number>,
  origins: TrustedOrigins,
): boolean {
  if (!knownWebContents.has(sender.webContentsId)) return false
  if (sender.frame === null || !sender.frame.isMainFrame) return false
  return isTrustedOrigin(sender.frame.url, origins)
}

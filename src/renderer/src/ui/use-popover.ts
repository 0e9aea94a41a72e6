import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react'

/**
 * A panel that opens under its button and leaves the page usable (a WAI-ARIA disclosure whose
 * panel is a non-modal dialog or a group): the button says whether it is open and which panel it
 * controls; on open, focus moves into the panel (`initialFocus`, else its first control); Escape
 * closes it and gives focus back to the button; a press outside both closes it and lands where it
 * was aimed.
 *
 * Neither `Dialog` nor `MenuButton`: a modal dialog would take the page away for a quick pick from
 * the title bar or the session bar, and a menu may hold only menu items, while these panels hold
 * lists of buttons with their own actions and, for the project switcher, a form with a text box.
 *
 * Headless: the caller renders the button and the panel and spreads `buttonProps` / `panelProps`
 * on them, so each keeps its own markup, role and accessible name.
 */
export function usePopover(options: { initialFocus?: string; onClose?: () => void } = {}) {
  const [open, setOpen] = useState(false)
  const button = useRef<HTMLButtonElement>(null)
  const panel = useRef<HTMLDivElement>(null)
  const panelId = useId()
  // Read when the panel opens and when it closes, so the latest ones apply without re-running the
  // open effect (which would pull focus back into the panel on every render).
  const latest = useRef(options)
  useEffect(() => {
    latest.current = options
  })

  const close = (refocus: boolean) => {
    setOpen(false)
    latest.current.onClose?.()
    if (refocus) button.current?.focus()
  }

  useEffect(() => {
    if (!open) return
    const root = panel.current
    const selector = latest.current.initialFocus
    ;(
      (selector ? root?.querySelector<HTMLElement>(selector) : null) ?? root?.querySelector<HTMLElement>(FIRST_CONTROL)
    )?.focus()
    const onPointer = (event: PointerEvent) => {
      const target = event.target as Node
      if (!panel.current?.contains(target) && !button.current?.contains(target)) {
        setOpen(false)
        latest.current.onClose?.()
      }
    }
    document.addEventListener('pointerdown', onPointer)
    return () => document.removeEventListener('pointerdown', onPointer)
  }, [open])

  return {
    open,
    show: () => setOpen(true),
    /** Closes the panel; `refocus` gives focus back to the button (after a choice made by keyboard). */
    close,
    buttonProps: {
      ref: button,
      'aria-expanded': open,
      'aria-controls': open ? panelId : undefined,
      onClick: () => (open ? close(false) : setOpen(true)),
    },
    panelProps: {
      ref: panel,
      id: panelId,
      onKeyDown: (event: KeyboardEvent<HTMLElement>) => {
        if (event.key !== 'Escape') return
        // The panel owns Escape: the pane or drawer behind it must not also close.
        event.stopPropagation()
        close(true)
      },
    },
  }
}

const FIRST_CONTROL =
  'button:not(:disabled), input:not(:disabled), select:not(:disabled), textarea:not(:disabled), a[href]'

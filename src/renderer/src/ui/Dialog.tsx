import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from 'react'

const FOCUSABLE =
  'a[href], button:not(:disabled), input:not(:disabled), select:not(:disabled), textarea:not(:disabled), [tabindex]:not([tabindex="-1"])'

/**
 * The controls Tab actually stops at, in order: a radio group is one stop (its checked radio; the
 * arrows move within it), and a control that is not rendered (display: none) is none. The trap
 * compares against these, so Tab past the last stop wraps instead of walking out of the dialog.
 */
function tabStops(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((element) => {
    if (element.getClientRects().length === 0) return false
    if (!(element instanceof HTMLInputElement) || element.type !== 'radio' || element.checked || !element.name)
      return true
    return !root.querySelector(`input[type="radio"][name="${CSS.escape(element.name)}"]:checked`)
  })
}

/**
 * A modal dialog: role=dialog, aria-modal, labelled by its title; focus moves in on open, Tab and
 * Shift+Tab stay inside, Escape or a press on the backdrop closes (unless `dismissible` is false,
 * e.g. while it works), and focus returns to where it was.
 *
 * Not the native <dialog>: showModal() moves it to the top layer and makes the whole page inert,
 * which would change how the existing sheets stack with menus and toasts; the trap here keeps the
 * same keyboard promise without that.
 */
export function Dialog(props: {
  title: ReactNode
  onClose: () => void
  children: ReactNode
  /** Header content after the title (e.g. a close button). */
  actions?: ReactNode
  /** False while the dialog works: Escape and the backdrop do nothing then. */
  dismissible?: boolean
  /** Where focus goes on open; the first focusable element when absent or not found. */
  initialFocus?: string
  className: string
  backdropClassName: string
  headerClassName?: string
  testId?: string
  /** For a dialog whose title is not a heading of its own (the accessible name alone). */
  label?: string
  /** data-* attributes of the dialog element, keyed without the prefix (a state tests and styles read). */
  data?: Readonly<Record<string, string | undefined>>
}) {
  const titleId = useId()
  const dialog = useRef<HTMLDivElement>(null)
  const dismissible = props.dismissible !== false

  useEffect(() => {
    const returnFocus = document.activeElement
    const root = dialog.current
    const target =
      (props.initialFocus ? root?.querySelector<HTMLElement>(props.initialFocus) : null) ??
      root?.querySelector<HTMLElement>(FOCUSABLE) ??
      root
    target?.focus()
    return () => {
      if (returnFocus instanceof HTMLElement && returnFocus.isConnected) returnFocus.focus()
    }
    // Focus moves in once, on open; later renders must not pull it back.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      // The dialog owns Escape: a pane or menu behind it must not also act on it.
      event.stopPropagation()
      if (dismissible) props.onClose()
      return
    }
    if (event.key !== 'Tab' || !dialog.current) return
    const focusable = tabStops(dialog.current)
    const first = focusable[0]
    const last = focusable[focusable.length - 1]
    if (!first || !last) {
      event.preventDefault()
      return
    }
    if (event.shiftKey && (document.activeElement === first || document.activeElement === dialog.current)) {
      event.preventDefault()
      last.focus()
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault()
      first.focus()
    }
  }

  return (
    <div
      className={props.backdropClassName}
      onPointerDown={(event) => event.target === event.currentTarget && dismissible && props.onClose()}
    >
      <div
        ref={dialog}
        className={props.className}
        role="dialog"
        aria-modal="true"
        tabIndex={-1}
        {...(props.label ? { 'aria-label': props.label } : { 'aria-labelledby': titleId })}
        data-testid={props.testId}
        {...Object.fromEntries(Object.entries(props.data ?? {}).map(([key, value]) => [`data-${key}`, value]))}
        onKeyDown={onKeyDown}
      >
        {(props.title !== null || props.actions) && (
          <header className={props.headerClassName}>
            {props.title !== null && <h2 id={titleId}>{props.title}</h2>}
            {props.actions}
          </header>
        )}
        {props.children}
      </div>
    </div>
  )
}

import { useEffect, useId, useRef, useState, type ReactNode } from 'react'

export type MenuItem =
  | { kind: 'item'; label: string; shortcut?: string | undefined; onSelect: () => void; testId?: string }
  | { kind: 'radio'; label: string; checked: boolean; onSelect: () => void; lang?: string }
  | { kind: 'separator' }
  | { kind: 'heading'; label: string }

/**
 * A menu button (WAI-ARIA menu button pattern): Enter/Space/↓ opens and focuses the first item,
 * ↑/↓/Home/End move, Enter selects, Escape closes and returns focus to the button.
 */
export function MenuButton(props: {
  label: string
  icon: ReactNode
  items: readonly MenuItem[]
  testId?: string
  className?: string
}) {
  const [open, setOpen] = useState(false)
  const button = useRef<HTMLButtonElement>(null)
  const menu = useRef<HTMLDivElement>(null)
  const id = useId()

  useEffect(() => {
    if (!open) return
    menu.current?.querySelector<HTMLElement>('[role^="menuitem"]')?.focus()
    const onPointer = (event: PointerEvent) => {
      if (!menu.current?.contains(event.target as Node) && !button.current?.contains(event.target as Node))
        setOpen(false)
    }
    document.addEventListener('pointerdown', onPointer)
    return () => document.removeEventListener('pointerdown', onPointer)
  }, [open])

  const close = (refocus: boolean) => {
    setOpen(false)
    if (refocus) button.current?.focus()
  }
  const onKeyDown = (event: React.KeyboardEvent) => {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role^="menuitem"]') ?? [])]
    const index = items.indexOf(document.activeElement as HTMLElement)
    const focus = (i: number) => items[(i + items.length) % items.length]?.focus()
    if (event.key === 'ArrowDown') focus(index + 1)
    else if (event.key === 'ArrowUp') focus(index - 1)
    else if (event.key === 'Home') focus(0)
    else if (event.key === 'End') focus(items.length - 1)
    else if (event.key === 'Escape' || event.key === 'Tab') close(event.key === 'Escape')
    else return
    if (event.key !== 'Tab') event.preventDefault()
  }

  return (
    <div className={`menu-anchor ${props.className ?? ''}`}>
      <button
        ref={button}
        type="button"
        className="icon-button"
        aria-label={props.label}
        title={props.label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        data-testid={props.testId}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown') {
            event.preventDefault()
            setOpen(true)
          }
        }}
      >
        {props.icon}
      </button>
      {open && (
        <div ref={menu} id={id} role="menu" aria-label={props.label} className="menu" onKeyDown={onKeyDown}>
          {props.items.map((item, index) => {
            switch (item.kind) {
              case 'separator':
                return <div key={index} role="separator" className="menu-separator" />
              case 'heading':
                return (
                  <div key={index} className="menu-heading" role="presentation">
                    {item.label}
                  </div>
                )
              case 'radio':
                return (
                  <div
                    key={index}
                    role="menuitemradio"
                    aria-checked={item.checked}
                    tabIndex={-1}
                    lang={item.lang}
                    className="menu-item"
                    onClick={() => {
                      item.onSelect()
                      close(true)
                    }}
                    onKeyDown={(event) => {
                      if (event.key === 'Enter' || event.key === ' ') {
                        event.preventDefault()
                        item.onSelect()
                        close(true)
                      }
                    }}
                  >
                    <span className="menu-check" aria-hidden="true">
                      {item.checked ? '✓' : ''}
                    </span>
                    {item.label}
                  </div>
                )
              case 'item':
                return (
                  <div
                    key={index}
                    role="menuitem"
                    tabIndex={-1}
                    className="menu-item"
                    data-testid={item.testId}
                    onClick={() => {
                      close(false)
                      item.onSelect()
                    }}
                    onKeyDown={(event) => {
                      if (event.key === 'Enter' || event.key === ' ') {
                        event.preventDefault()
                        close(false)
                        item.onSelect()
                      }
                    }}
                  >
                    <span className="menu-check" aria-hidden="true" />
                    <span className="menu-label">{item.label}</span>
                    {item.shortcut && <kbd className="menu-shortcut">{item.shortcut}</kbd>}
                  </div>
                )
            }
          })}
        </div>
      )}
    </div>
  )
}

import type { RestoreOperation } from './types'

const common = {
  width: 14,
  height: 14,
  viewBox: '0 0 16 16',
  fill: 'none',
  stroke: 'currentColor',
  strokeWidth: 1.4,
  strokeLinecap: 'round',
  strokeLinejoin: 'round',
  'aria-hidden': true,
  focusable: false,
} as const

export function FileEditIcon() {
  return (
    <svg {...common} width={16} height={16} className="icon">
      <path d="M9.5 1.75H4a1.25 1.25 0 0 0-1.25 1.25v10A1.25 1.25 0 0 0 4 14.25h3" />
      <path d="M9.5 1.75v3.5h3.5" />
      <path d="M13 5.25 9.5 1.75" />
      <path d="m12.6 8.4 1.5 1.5-4.3 4.3H8.3v-1.5z" />
    </svg>
  )
}

/** Direction icons of the restore actions: back to before the turn, or forward to its after state. */
export function RestoreIcon(props: { operation: RestoreOperation }) {
  switch (props.operation) {
    case 'undo':
      return (
        <svg {...common} className="icon">
          <path d="M5.5 3.5 2.5 6.5l3 3" />
          <path d="M2.5 6.5h7a4 4 0 0 1 0 8H7" />
        </svg>
      )
    case 'redo':
      return (
        <svg {...common} className="icon">
          <path d="m10.5 3.5 3 3-3 3" />
          <path d="M13.5 6.5h-7a4 4 0 0 0 0 8H9" />
        </svg>
      )
    case 'revert':
      return (
        <svg {...common} className="icon">
          <path d="M6.5 4 2.5 8l4 4" />
          <path d="M2.5 8h11" />
        </svg>
      )
    case 'reapply':
      return (
        <svg {...common} className="icon">
          <path d="m9.5 4 4 4-4 4" />
          <path d="M13.5 8h-11" />
        </svg>
      )
  }
}

export function ChevronIcon(props: { open: boolean }) {
  return (
    <svg {...common} width={12} height={12} className={props.open ? 'icon chevron open' : 'icon chevron'}>
      <path d="m6 4 4 4-4 4" />
    </svg>
  )
}

export function SettingsIcon() {
  return (
    <svg {...common} className="icon">
      <path d="M2 4h6.5M11.5 4H14M2 8h2.5M7.5 8H14M2 12h7.5M12.5 12H14" />
      <circle cx="10" cy="4" r="1.5" />
      <circle cx="6" cy="8" r="1.5" />
      <circle cx="11" cy="12" r="1.5" />
    </svg>
  )
}

export function PlusIcon() {
  return (
    <svg {...common} className="icon">
      <path d="M8 3v10M3 8h10" />
    </svg>
  )
}

import { useEffect, useId, useRef, useState } from 'react'
import { useI18n } from '../../i18n'

export interface PickerPrompt {
  readonly turnId: string
  readonly text: string
}

/**
 * `/rewind` (or Esc Esc on an empty message box): the prompts of the active branch, newest first,
 * like Claude Code's rewind menu. ↑/↓ choose, Enter opens the impact sheet for the checkpoint
 * before that prompt, Escape closes and returns to the message box.
 */
export function RewindPicker(props: {
  prompts: readonly PickerPrompt[]
  onPick: (prompt: PickerPrompt) => void
  onClose: () => void
}) {
  const { t } = useI18n()
  const id = useId()
  const list = useRef<HTMLUListElement>(null)
  const newestFirst = [...props.prompts].reverse()
  const [highlighted, setHighlighted] = useState(0)

  useEffect(() => {
    list.current?.focus()
  }, [])
  useEffect(() => {
    list.current?.querySelector(`#${CSS.escape(`${id}-${highlighted}`)}`)?.scrollIntoView({ block: 'nearest' })
  }, [id, highlighted])

  return (
    <div className="rewind-picker" data-testid="rewind-picker">
      <p className="rewind-picker-title" id={`${id}-title`}>
        {t('picker.title')}
      </p>
      {newestFirst.length === 0 ? (
        <p className="rewind-picker-empty">{t('picker.empty')}</p>
      ) : (
        <ul
          ref={list}
          className="rewind-picker-list"
          role="listbox"
          tabIndex={0}
          aria-labelledby={`${id}-title`}
          aria-activedescendant={`${id}-${highlighted}`}
          onKeyDown={(event) => {
            if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
              event.preventDefault()
              const step = event.key === 'ArrowDown' ? 1 : -1
              setHighlighted((h) => (h + step + newestFirst.length) % newestFirst.length)
            } else if (event.key === 'Home' || event.key === 'End') {
              event.preventDefault()
              setHighlighted(event.key === 'Home' ? 0 : newestFirst.length - 1)
            } else if (event.key === 'Enter') {
              event.preventDefault()
              const chosen = newestFirst[highlighted]
              if (chosen) props.onPick(chosen)
            } else if (event.key === 'Escape') {
              event.preventDefault()
              event.stopPropagation()
              props.onClose()
            }
          }}
          onBlur={(event) => {
            if (!event.currentTarget.parentElement?.contains(event.relatedTarget as Node | null)) props.onClose()
          }}
        >
          {newestFirst.map((prompt, index) => (
            <li
              key={prompt.turnId}
              id={`${id}-${index}`}
              role="option"
              aria-selected={index === highlighted}
              className={index === highlighted ? 'rewind-picker-item highlighted' : 'rewind-picker-item'}
              data-testid="rewind-picker-item"
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => props.onPick(prompt)}
            >
              <span className="rewind-picker-text">{prompt.text.trim().split('\n')[0]}</span>
              <span className="rewind-picker-meta">{t('picker.turnsBack', { count: index + 1 })}</span>
            </li>
          ))}
        </ul>
      )}
      <p className="rewind-picker-hint">{t('picker.hint')}</p>
    </div>
  )
}

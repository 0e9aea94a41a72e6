import { useState } from 'react'
import { useI18n } from '../../i18n'
import { ChevronIcon } from './icons'

/** The model's reasoning, folded away unless asked for. */
export function ReasoningView(props: { text: string }) {
  const { t } = useI18n()
  const [open, setOpen] = useState(false)
  return (
    <div className="reasoning">
      <button type="button" className="reasoning-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        <ChevronIcon open={open} />
        {t('chat.reasoning')}
      </button>
      {open && <p className="reasoning-text">{props.text}</p>}
    </div>
  )
}

import type { ReactNode } from 'react'

/**
 * An assertive live region around more than one line of text: a message with the control that
 * answers it (retry, download), a notice that is not a failure, or a line another control names
 * (`id` for aria-describedby). A single failure sentence is an ErrorLine instead.
 */
export function Alert(props: {
  children: ReactNode
  /** `p` for a sentence, `div` for a block with headings or buttons, `span` inside a line. */
  as?: 'p' | 'div' | 'span'
  className?: string
  testId?: string
  id?: string
}) {
  const Element = props.as ?? 'p'
  return (
    <Element id={props.id} className={props.className} role="alert" data-testid={props.testId}>
      {props.children}
    </Element>
  )
}

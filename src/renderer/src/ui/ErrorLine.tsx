/**
 * The one way a view says something failed: an assertive live region (read out as it appears),
 * rendered only while there is something to say, so an empty alert is never announced.
 */
export function ErrorLine(props: {
  message: string | null | undefined
  className?: string
  testId?: string
  /** Inside a line of other content (a span, not a paragraph). */
  inline?: boolean
}) {
  if (!props.message) return null
  const Element = props.inline ? 'span' : 'p'
  return (
    <Element
      className={props.className ? `error-line ${props.className}` : 'error-line'}
      role="alert"
      data-testid={props.testId}
    >
      {props.message}
    </Element>
  )
}

import { parseUnifiedDiff } from './diff-lines'

/** A unified diff, one coloured row per line; plain text only, never parsed as HTML. */
export function DiffView(props: { diff: string }) {
  const lines = parseUnifiedDiff(props.diff)
  return (
    <pre className="diff-view" data-testid="diff-view">
      {lines.map((line, index) => (
        <span key={index} className={`diff-line diff-${line.kind}`}>
          {line.text === '' ? ' ' : line.text}
        </span>
      ))}
    </pre>
  )
}

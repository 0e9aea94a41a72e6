/** A unified diff as lines coloured by their first character; text only, never HTML. */
export function DiffText(props: { diff: string }) {
  const lines = props.diff.split('\n')
  return (
    <pre className="diff-text">
      {lines.map((line, index) => {
        const kind =
          line.startsWith('+++') || line.startsWith('---')
            ? 'file'
            : line.startsWith('@@')
              ? 'hunk'
              : line.startsWith('+')
                ? 'add'
                : line.startsWith('-')
                  ? 'del'
                  : 'ctx'
        return (
          <span key={index} className={`diff-line diff-${kind}`}>
            {line}
            {'\n'}
          </span>
        )
      })}
    </pre>
  )
}

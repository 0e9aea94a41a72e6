/** A codicon (VS Code's icon font, bundled locally). Decorative: the control carries the name. */
export function Icon(props: { name: string; className?: string }) {
  return (
    <span
      className={`codicon codicon-${props.name}${props.className ? ` ${props.className}` : ''}`}
      aria-hidden="true"
    />
  )
}

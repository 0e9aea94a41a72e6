import { useMemo } from 'react'
import { DiffView } from './DiffView'
import { parsePatch } from './patch'

/**
 * A unified patch (an approval's proposed change) in the same diff view Review uses: each file's
 * header as written, then its hunks with line numbers and changed words marked. Plain text only,
 * never parsed as HTML.
 */
export function PatchView(props: { patch: string }) {
  const files = useMemo(() => parsePatch(props.patch), [props.patch])
  return (
    <div className="patch-view" data-testid="patch-view">
      {files.map((file, index) => (
        <section key={index} className="patch-file">
          {file.header.map((line, i) => (
            <p key={i} className="patch-meta">
              {line}
            </p>
          ))}
          {file.hunks.length > 0 && <DiffView hunks={file.hunks} layout="unified" compact />}
          {file.notes.map((line, i) => (
            <p key={i} className="patch-meta">
              {line}
            </p>
          ))}
        </section>
      ))}
    </div>
  )
}

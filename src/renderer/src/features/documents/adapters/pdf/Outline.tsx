import { useState } from 'react'
import { useI18n } from '../../../../i18n'
import { Icon } from '../../../../ui/Icon'
import { useStore } from '../../../../ui/store'
import type { PdfReader } from './reader'
import type { OutlineNode } from './reader-state'

function Item(props: { node: OutlineNode; reader: PdfReader; level: number }) {
  const { node, reader } = props
  // Top-level chapters start open, deeper levels closed (as most readers show a paper's outline).
  const [open, setOpen] = useState(props.level === 1)
  const hasChildren = node.children.length > 0
  return (
    <li role="treeitem" aria-expanded={hasChildren ? open : undefined} aria-level={props.level} aria-selected={false}>
      <div className="pdf-outline-row" style={{ paddingInlineStart: `${(props.level - 1) * 12}px` }}>
        {hasChildren ? (
          <button
            type="button"
            className="pdf-outline-twisty"
            tabIndex={-1}
            aria-hidden="true"
            onClick={() => setOpen(!open)}
          >
            <Icon name={open ? 'chevron-down' : 'chevron-right'} />
          </button>
        ) : (
          <span className="pdf-outline-twisty" />
        )}
        <button
          type="button"
          className="pdf-outline-title"
          title={node.title}
          disabled={node.dest === null}
          onClick={() => node.dest !== null && reader.goToDestination(node.dest)}
          onKeyDown={(event) => {
            if (event.key === 'ArrowRight' && hasChildren) setOpen(true)
            if (event.key === 'ArrowLeft' && hasChildren) setOpen(false)
          }}
        >
          {node.title}
        </button>
      </div>
      {hasChildren && open && (
        <ul role="group">
          {node.children.map((child) => (
            <Item key={child.id} node={child} reader={reader} level={props.level + 1} />
          ))}
        </ul>
      )}
    </li>
  )
}

/** The document's outline (bookmarks), nested; a click goes to the entry's destination. */
export function Outline(props: { reader: PdfReader }) {
  const { t } = useI18n()
  const outline = useStore(props.reader.store, (s) => s.outline)
  if (outline === null) return <p className="pdf-sidebar-note">{t('pdf.outlineLoading')}</p>
  if (outline.length === 0) return <p className="pdf-sidebar-note">{t('pdf.noOutline')}</p>
  return (
    <ul className="pdf-outline" role="tree" aria-label={t('pdf.outline')}>
      {outline.map((node) => (
        <Item key={node.id} node={node} reader={props.reader} level={1} />
      ))}
    </ul>
  )
}

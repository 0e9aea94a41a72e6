import { Suspense, useEffect, useRef, useState } from 'react'
import type { ApprovalRequest } from '../../../../shared/protocol'
import { useI18n, type MessageKey } from '../../i18n'
import type { RequestOutcome } from '../../transport'
import { PatchView } from '../../ui/diff'
import { DocumentDiffView } from '../../ui/document-diff'
import { ErrorLine } from '../../ui/ErrorLine'
import type { ApprovalDecision } from './types'
import { useAction } from '../../ui/use-action'
import { displayChord } from '../../ui/chords'
import { useStore } from '../../ui/store'
import { APPROVE_CHORD, pendingApprovals, registerPendingApproval, REJECT_CHORD } from './pending-approvals'

const OPERATION_LABEL = new Map<string, MessageKey>([
  ['create', 'approval.op.create'],
  ['modify', 'approval.op.modify'],
  ['delete', 'approval.op.delete'],
  ['rename', 'approval.op.rename'],
])

/** What the agent asks to do and the person's answer (spec 05 "Permissions"). */
export function ApprovalCard(props: {
  approval: ApprovalRequest
  onDecide: (decision: ApprovalDecision) => Promise<RequestOutcome<unknown>>
}) {
  const { t } = useI18n()
  const [sending, setSending] = useState<ApprovalDecision | null>(null)
  const decision = useAction()
  const { approval } = props
  const files = approval.files ?? []
  const documents = approval.documents ?? []
  const patch = withoutDocuments(approval.diff ?? '', documents)

  async function decide(answer: ApprovalDecision) {
    setSending(answer)
    const outcome = await decision.run(() => props.onDecide(answer))
    // On success the tool part's next version replaces this card; until then the buttons stay off.
    if (outcome.kind !== 'ok') setSending(null)
  }
  const decideRef = useRef(decide)
  useEffect(() => {
    decideRef.current = decide
  })
  // While it waits, the card answers the window's Alt+Y / Alt+N (chat/commands.ts) — when it is the
  // oldest card waiting, which is then the one showing the keys.
  const [waiting] = useState(() => ({ decide: (answer: ApprovalDecision) => void decideRef.current(answer) }))
  useEffect(() => (sending === null ? registerPendingApproval(waiting) : undefined), [sending, waiting])
  const keysAnswerThis = useStore(pendingApprovals, (list) => list[0] === waiting)

  return (
    <div className="approval" data-testid="approval" role="group" aria-label={t('approval.title')}>
      <p className="approval-title">
        {approval.kind === 'command' ? t('approval.command') : t('approval.files', { count: files.length })}
      </p>
      {approval.outside_root && (
        <p className="approval-warning" role="note">
          {t('approval.outsideRoot')}
        </p>
      )}
      {approval.kind === 'command' ? (
        <pre className="approval-command">{approval.command ?? ''}</pre>
      ) : (
        <>
          {files.length > 0 && (
            <ul className="approval-files">
              {files.map((file) => {
                const label = OPERATION_LABEL.get(file.operation)
                return (
                  <li key={`${file.operation}:${file.path}`}>
                    <span className={`approval-op approval-op-${file.operation}`}>
                      {label ? t(label) : file.operation}
                    </span>
                    <span className="approval-path">{file.path}</span>
                    {file.source !== undefined && (
                      // Whose bytes are published: a generated file's origin, not just its size.
                      <span className="approval-source">{t('approval.from', { path: file.source })}</span>
                    )}
                  </li>
                )
              })}
            </ul>
          )}
          {documents.length > 0 && (
            <div className="approval-documents" data-testid="approval-documents">
              {documents.map((document) =>
                document.diff !== null ? (
                  <DocumentDiffView key={document.path} diff={document.diff} path={document.path} compact />
                ) : (
                  <p key={document.path} className="approval-note" role="note">
                    {t('approval.documentUnavailable', { path: document.path })}
                  </p>
                ),
              )}
            </div>
          )}
          {patch !== '' && (
            <Suspense fallback={<pre className="approval-command">{patch}</pre>}>
              <PatchView patch={patch} />
            </Suspense>
          )}
        </>
      )}
      <div className="approval-actions">
        <button
          type="button"
          className="primary"
          disabled={sending !== null}
          onClick={() => void decide('approve')}
          data-testid="approval-approve"
          aria-keyshortcuts={keysAnswerThis ? APPROVE_CHORD : undefined}
        >
          {t('approval.approve')}
          {keysAnswerThis && <kbd aria-hidden="true">{displayChord(APPROVE_CHORD)}</kbd>}
        </button>
        <button
          type="button"
          disabled={sending !== null}
          onClick={() => void decide('reject')}
          data-testid="approval-reject"
          aria-keyshortcuts={keysAnswerThis ? REJECT_CHORD : undefined}
        >
          {t('approval.reject')}
          {keysAnswerThis && <kbd aria-hidden="true">{displayChord(REJECT_CHORD)}</kbd>}
        </button>
        {approval.kind === 'command' && (
          <button
            type="button"
            disabled={sending !== null}
            onClick={() => void decide('always')}
            data-testid="approval-always"
          >
            {t('approval.always')}
          </button>
        )}
      </div>
      <ErrorLine message={decision.error} />
    </div>
  )
}

/**
 * The unified diff without the sections of files the card shows as documents: such a section only
 * says "Binary file: 4939 → 5496 bytes" (approvals.ts), which the document view replaces. A
 * document whose diff could not be computed keeps its section: its sizes are all there is to show.
 */
function withoutDocuments(diff: string, documents: readonly { path: string; diff: unknown }[]): string {
  const shown = new Set(documents.filter((document) => document.diff !== null).map((document) => document.path))
  if (diff === '' || shown.size === 0) return diff
  const sections = diff.split(/^(?=--- [^\n]*\n\+\+\+ )/m)
  return sections
    .filter((section) => {
      const header = /^--- (?:a\/)?(.*)\n\+\+\+ (?:b\/)?(.*)$/m.exec(section)
      return !(header && (shown.has(header[1] ?? '') || shown.has(header[2] ?? '')))
    })
    .join('')
}

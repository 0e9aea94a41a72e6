import { useClient } from '../../ui/client-context'
import { useI18n } from '../../i18n'
import { promptBefore } from './transcript-model'
import { ErrorLine } from '../../ui/ErrorLine'
import type { Alignment, TranscriptNode } from '../session'
import { useAction } from '../../ui/use-action'

/**
 * Spec 04 alignment: when the files do not hold the active branch's code, say so and offer the
 * two ways forward — Keep current files (the branch adopts them) or Restore branch code (a
 * restore transaction, previewed in the impact sheet first; the conversation does not move). Both bind what the banner showed; a
 * stale choice is refused by the engine and the banner refreshes. After a code-only rewind the
 * banner only informs (the agent may continue from the rewound files).
 */
export function AlignmentBanner(props: {
  projectId: string
  sessionId: string
  alignment: Alignment
  rootNodeId: string
  nodes: readonly TranscriptNode[]
  onChanged: () => void
  /** Restore branch code opens its impact preview (issue 23 item 13); nothing is written from here. */
  onRestore: () => void
}) {
  const client = useClient()
  const { t } = useI18n()
  const keep = useAction()
  const { alignment } = props
  if (alignment.state === 'aligned') return null

  const filesPrompt =
    alignment.files_node_id === props.rootNodeId ? null : promptBefore(props.nodes, alignment.files_node_id)
  const text =
    alignment.state === 'mismatch'
      ? filesPrompt === null
        ? t('align.mismatchStart')
        : t('align.mismatch', { prompt: clip(filesPrompt) })
      : t('align.codeRewound', {
          where: filesPrompt === null ? t('align.start') : t('align.afterPrompt', { prompt: clip(filesPrompt) }),
        })

  async function decideKeep() {
    const outcome = await keep.run(
      () =>
        client.request(
          'session.align',
          {
            session_id: props.sessionId,
            decision: 'keep',
            expected_source: alignment.files_node_id,
            expected_target: alignment.head_node_id,
          },
          { owner: { project_id: props.projectId }, idempotencyKey: crypto.randomUUID(), timeoutMs: 180_000 },
        ),
      { frame: 'align.failed' },
    )
    if (outcome.kind === 'cancelled') return
    // These two refusals have sentences of their own rather than the framed engine message.
    if (outcome.kind === 'error' && outcome.error.code === 'BLOCKED') {
      const conflicts = (outcome.error.details?.conflicts ?? []) as Array<{ path: string }>
      keep.refuse(t('align.blocked', { paths: conflicts.map((c) => c.path || '—').join(', ') }))
    } else if (outcome.kind === 'error' && outcome.error.code === 'STALE_PLAN') {
      keep.refuse(t('align.stale'))
    }
    props.onChanged()
  }

  return (
    <div
      className={`alignment-banner alignment-${alignment.state}`}
      role="region"
      aria-label={t('align.restore')}
      data-testid="alignment-banner"
      data-state={alignment.state}
    >
      <p className="alignment-text" role="status">
        {text}
      </p>
      <div className="alignment-actions">
        <button type="button" disabled={keep.busy} onClick={() => void decideKeep()} data-testid="align-keep">
          {keep.busy ? t('align.working') : t('align.keep')}
        </button>
        <button
          type="button"
          className="primary"
          disabled={keep.busy}
          onClick={props.onRestore}
          data-testid="align-restore"
        >
          {t('align.restore')}
        </button>
      </div>
      <ErrorLine message={keep.error} testId="align-error" />
    </div>
  )
}

function clip(text: string): string {
  const line = text.trim().split('\n')[0] ?? ''
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}

import { useState } from 'react'
import { useClient } from '../../ui/client-context'
import { formatBytes, useI18n } from '../../i18n'
import type { AutosaveState } from '../drafts'
import { MAX_DRAFTS, MAX_DRAFT_BYTES } from '../drafts'
import { Compare } from './Compare'
import type { TextWorkingCopy } from './working-copy/text-working-copy'
import { Alert } from '../../ui/Alert'
import { baseName, copyName, parentPath } from '../../../../shared/paths'

/** `notes.md` → `notes (copy).md`; a name without an extension gets the suffix at the end. */
export function copyPathOf(path: string, attempt = 1): string {
  const folder = parentPath(path)
  const name = copyName(baseName(path), attempt)
  return folder === '' ? name : `${folder}/${name}`
}

/**
 * What the editor needs the person to decide (spec 08): the file changed underneath a draft
 * (compare / keep mine and overwrite / discard mine / save mine as a copy — never automatic), a
 * publish that failed (retry), or a full draft store (growth paused until resolved).
 */
export function EditBanner(props: {
  projectId: string
  path: string
  copy: TextWorkingCopy
  state: AutosaveState
  /** The editor's text now (the draft may lag a keystroke behind when the store refused it). */
  currentText: () => string
  /** Re-read the file from disk into the editor (after discarding). */
  onReload: () => void
  onOpenFile?: ((path: string) => void) | undefined
}) {
  const client = useClient()
  const { t } = useI18n()
  const [compare, setCompare] = useState<{ disk: string } | null>(null)
  const [busy, setBusy] = useState(false)
  const [note, setNote] = useState<string | null>(null)
  const { problem } = props.state
  if (!problem) return null
  const owner = { project_id: props.projectId }

  const readDisk = async () => {
    const read = await client.request('files.read', { path: props.path }, { owner })
    if (read.kind === 'ok')
      return { revision: read.result.revision, text: read.result.kind === 'text' ? read.result.text : '' }
    if (read.kind === 'error' && read.error.code === 'NOT_FOUND') return { revision: null, text: '' }
    return undefined
  }
  const act = async (work: () => Promise<void>) => {
    setBusy(true)
    setNote(null)
    try {
      await work()
    } finally {
      setBusy(false)
    }
  }

  if (problem.kind === 'conflict') {
    return (
      <Alert as="div" className="edit-banner edit-banner-conflict" testId="conflict-banner">
        <p>{t('edit.conflict')}</p>
        <div className="edit-banner-actions">
          <button
            type="button"
            data-testid="conflict-compare"
            disabled={busy}
            aria-expanded={compare !== null}
            onClick={() =>
              void act(async () => {
                if (compare) return setCompare(null)
                const disk = await readDisk()
                setCompare({ disk: disk?.text ?? '' })
              })
            }
          >
            {compare ? t('edit.hideCompare') : t('edit.compare')}
          </button>
          <button
            type="button"
            data-testid="conflict-keep"
            disabled={busy}
            onClick={() =>
              void act(async () => {
                const disk = await readDisk()
                if (!disk) return setNote(t('edit.failedRead'))
                await props.copy.overwrite(disk.revision)
                setCompare(null)
              })
            }
          >
            {t('edit.keepMine')}
          </button>
          <button
            type="button"
            data-testid="conflict-discard"
            disabled={busy}
            onClick={() =>
              void act(async () => {
                await props.copy.revert()
                setCompare(null)
                props.onReload()
              })
            }
          >
            {t('edit.discardMine')}
          </button>
          <button
            type="button"
            data-testid="conflict-copy"
            disabled={busy}
            onClick={() =>
              void act(async () => {
                const text = props.currentText()
                for (let attempt = 1; attempt <= 20; attempt++) {
                  const target = copyPathOf(props.path, attempt)
                  const created = await client.request(
                    'files.create',
                    { path: target, kind: 'file', content: text },
                    { owner, idempotencyKey: crypto.randomUUID() },
                  )
                  if (created.kind === 'ok') {
                    await props.copy.revert()
                    setCompare(null)
                    props.onReload()
                    props.onOpenFile?.(target)
                    return
                  }
                  if (!(created.kind === 'error' && created.error.code === 'CONFLICT')) break
                }
                setNote(t('edit.copyFailed'))
              })
            }
          >
            {t('edit.saveCopy')}
          </button>
        </div>
        {note && <p className="edit-banner-note">{note}</p>}
        {compare && (
          <div className="edit-compare">
            <p className="edit-compare-labels">
              <span>{t('edit.diskSide')}</span>
              <span>{t('edit.draftSide')}</span>
            </p>
            <Compare
              original={compare.disk}
              modified={props.currentText()}
              path={props.path}
              testId="conflict-compare-view"
            />
          </div>
        )}
      </Alert>
    )
  }
  if (problem.kind === 'failed') {
    return (
      <Alert as="div" className="edit-banner edit-banner-failed" testId="save-failed">
        <p>{t('edit.failed', { message: problem.message })}</p>
        <div className="edit-banner-actions">
          <button
            type="button"
            data-testid="save-retry"
            disabled={busy}
            onClick={() => void act(async () => void (await props.copy.retry()))}
          >
            {t('edit.retry')}
          </button>
        </div>
      </Alert>
    )
  }
  return (
    <Alert as="div" className="edit-banner edit-banner-quota" testId="draft-quota">
      <p>
        {problem.kind === 'quota'
          ? t('edit.quota', { count: MAX_DRAFTS, bytes: formatBytes(MAX_DRAFT_BYTES) })
          : t('edit.storage', { message: problem.message })}
      </p>
      <div className="edit-banner-actions">
        <button
          type="button"
          data-testid="draft-save-now"
          disabled={busy}
          onClick={() => void act(async () => void (await props.copy.saveNow(props.currentText())))}
        >
          {t('edit.saveNow')}
        </button>
        <button
          type="button"
          data-testid="draft-revert"
          disabled={busy}
          onClick={() =>
            void act(async () => {
              await props.copy.revert()
              props.onReload()
            })
          }
        >
          {t('edit.revert')}
        </button>
      </div>
    </Alert>
  )
}

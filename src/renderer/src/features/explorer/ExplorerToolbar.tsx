import { useImperativeHandle, useState, type FormEvent, type KeyboardEvent, type Ref } from 'react'
import { closeEditor, dirtyPathsOf, draftStore, openEditor } from '../drafts'
import { useStore } from '../../ui/store'
import { parentPath } from '../../../../shared/paths'
import { useClient } from '../../ui/client-context'
import { useI18n } from '../../i18n'
import { Icon } from '../../ui/Icon'
import { ErrorLine } from '../../ui/ErrorLine'
import { isFailure, type FailedOutcome } from '../../ui/outcome-message'
import { useAction } from '../../ui/use-action'

export interface SelectedEntry {
  readonly path: string
  readonly kind: 'file' | 'dir' | 'symlink'
}

/** What the tree's keys ask of the toolbar (F2, Delete) for the row they were pressed on. */
export interface ExplorerToolbarHandle {
  rename(entry: SelectedEntry): void
  confirmDelete(): void
}

type Mode = { kind: 'idle' } | { kind: 'new'; entry: 'file' | 'dir' } | { kind: 'rename' } | { kind: 'confirm-delete' }

/**
 * New file / New folder / Rename / Delete (spec 08). Each is one journaled, idempotent request; the
 * key is made once per attempt so a retried click can never apply the same change twice.
 */
export function ExplorerToolbar(props: {
  projectId: string
  selected: SelectedEntry | null
  onCreated: (path: string, kind: 'file' | 'dir') => void
  onRenamed: (from: string, to: string) => void
  onDeleted: (path: string) => void
  handle?: Ref<ExplorerToolbarHandle>
  /** Escape closed the name field or the delete question: the focus goes back to the tree. */
  onDismiss?: () => void
}) {
  const client = useClient()
  const dirty = useStore(dirtyPathsOf(props.projectId))
  const { t } = useI18n()
  const [mode, setMode] = useState<Mode>({ kind: 'idle' })
  const [name, setName] = useState('')
  const action = useAction()
  const busy = action.busy
  const owner = { project_id: props.projectId }
  const selected = props.selected
  const targetFolder = selected === null ? '' : selected.kind === 'dir' ? selected.path : parentPath(selected.path)

  const start = (next: Mode, initialName = '') => {
    setMode(next)
    setName(initialName)
    action.clear()
  }
  const cancel = () => start({ kind: 'idle' })
  // The tree selects the row first; its name is passed because `selected` is this render's value.
  useImperativeHandle(
    props.handle,
    () => ({
      rename: (entry) => start({ kind: 'rename' }, entry.path.slice(entry.path.lastIndexOf('/') + 1)),
      confirmDelete: () => start({ kind: 'confirm-delete' }),
    }),
    // `start` only sets state and clears the action line: stable in effect.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [],
  )
  /** A refusal decided here: shown by the action, nothing sent. */
  const refuse = (message: string) => {
    action.refuse(message)
    return { kind: 'cancelled' } as const
  }

  /** The file's revision, null for a folder, or the failed read. */
  async function revisionOf(path: string, signal: AbortSignal): Promise<string | null | FailedOutcome> {
    const read = await client.request('files.read', { path }, { owner, signal })
    if (read.kind === 'ok') return read.result.revision
    if (isFailure(read, 'INVALID_REQUEST')) return null // a folder
    return read
  }

  async function submit(event: FormEvent) {
    event.preventDefault()
    const trimmed = name.trim()
    if (trimmed === '') return
    const idempotencyKey = crypto.randomUUID()
    await action.run(async (signal) => {
      if (mode.kind === 'new') {
        const path = targetFolder === '' ? trimmed : `${targetFolder}/${trimmed}`
        const outcome = await client.request(
          'files.create',
          { path, kind: mode.entry },
          { owner, idempotencyKey, signal },
        )
        if (outcome.kind === 'ok') {
          cancel()
          props.onCreated(path, mode.entry)
        }
        return outcome
      }
      if (mode.kind !== 'rename' || !selected) return { kind: 'cancelled' }
      const to = parentPath(selected.path) === '' ? trimmed : `${parentPath(selected.path)}/${trimmed}`
      // A rename waits for the editor's final publish (spec 08); unpublished edits stop it.
      if ((await openEditor(props.projectId, selected.path)?.flush()) === false)
        return refuse(t('explorer.unsavedFirst'))
      const revision = await revisionOf(selected.path, signal)
      if (revision === null) return refuse(t('explorer.renameFolderUnsupported'))
      if (typeof revision !== 'string') return revision
      const outcome = await client.request(
        'files.rename',
        { from: selected.path, to, expected_revision: revision },
        { owner, idempotencyKey, signal },
      )
      if (outcome.kind === 'ok') {
        cancel()
        // The draft key moves with the file; an editor of the old path closes.
        await closeEditor(props.projectId, selected.path)
        await (await draftStore()).rename(props.projectId, selected.path, to)
        props.onRenamed(selected.path, to)
      }
      return outcome
    })
  }

  async function confirmDelete(draft: 'none' | 'discard' = 'none') {
    if (!selected || busy) return
    if (draft === 'discard') {
      await openEditor(props.projectId, selected.path)?.discard()
      await (await draftStore()).discard(props.projectId, selected.path)
    }
    await action.run(async (signal) => {
      const revision = await revisionOf(selected.path, signal)
      if (typeof revision === 'object' && revision !== null) return revision
      const outcome = await client.request(
        'files.delete',
        { path: selected.path, expected_revision: revision },
        { owner, idempotencyKey: crypto.randomUUID(), signal },
      )
      if (outcome.kind === 'ok') {
        cancel()
        props.onDeleted(selected.path)
      }
      return outcome
    })
  }

  const onEscape = (event: KeyboardEvent<HTMLElement>) => {
    if (event.key !== 'Escape') return
    event.stopPropagation()
    cancel()
    props.onDismiss?.()
  }
  const baseName = selected ? selected.path.slice(selected.path.lastIndexOf('/') + 1) : ''

  return (
    <div className="explorer-toolbar">
      <div className="toolbar-buttons" role="toolbar" aria-label={t('explorer.actions')}>
        {(
          [
            ['new-file', 'explorer.newFile', false, () => start({ kind: 'new', entry: 'file' })],
            ['new-folder', 'explorer.newFolder', false, () => start({ kind: 'new', entry: 'dir' })],
            ['edit', 'explorer.rename', !selected, () => start({ kind: 'rename' }, baseName)],
            ['trash', 'explorer.delete', !selected, () => start({ kind: 'confirm-delete' })],
          ] as const
        ).map(([icon, label, disabled, run]) => (
          <button
            key={icon}
            type="button"
            className="icon-button"
            aria-label={t(label)}
            title={t(label)}
            disabled={disabled}
            onClick={run}
          >
            <Icon name={icon} />
          </button>
        ))}
      </div>
      {(mode.kind === 'new' || mode.kind === 'rename') && (
        <form className="toolbar-form" onSubmit={(event) => void submit(event)}>
          <label className="field">
            <span className="field-label">
              {mode.kind === 'rename'
                ? t('explorer.renameLabel', { path: selected?.path ?? '' })
                : t(mode.entry === 'file' ? 'explorer.newFileIn' : 'explorer.newFolderIn', {
                    folder: targetFolder || '/',
                  })}
            </span>
            <input
              autoFocus
              value={name}
              spellCheck={false}
              onChange={(event) => setName(event.target.value)}
              onKeyDown={onEscape}
              data-testid="explorer-name-input"
            />
          </label>
          <button type="submit" disabled={busy}>
            {mode.kind === 'rename' ? t('explorer.rename') : t('explorer.create')}
          </button>
          <button type="button" onClick={cancel}>
            {t('explorer.cancel')}
          </button>
        </form>
      )}
      {mode.kind === 'confirm-delete' && selected && dirty.has(selected.path) && (
        <div
          className="toolbar-form"
          role="alertdialog"
          aria-label={t('explorer.delete')}
          data-testid="delete-dirty"
          onKeyDown={onEscape}
        >
          <span>{t('explorer.deleteDirty', { path: selected.path })}</span>
          <button
            type="button"
            autoFocus
            disabled={busy}
            onClick={() =>
              void (async () => {
                await openEditor(props.projectId, selected.path)?.flush()
                cancel()
              })()
            }
          >
            {t('explorer.saveDraft')}
          </button>
          <button type="button" className="danger" disabled={busy} onClick={() => void confirmDelete('discard')}>
            {t('explorer.discardAndDelete')}
          </button>
          <button type="button" onClick={cancel}>
            {t('explorer.cancel')}
          </button>
        </div>
      )}
      {mode.kind === 'confirm-delete' && selected && !dirty.has(selected.path) && (
        <div className="toolbar-form" role="alertdialog" aria-label={t('explorer.delete')} onKeyDown={onEscape}>
          <span>{t('explorer.confirmDelete', { path: selected.path })}</span>
          <button type="button" className="danger" autoFocus disabled={busy} onClick={() => void confirmDelete()}>
            {t('explorer.delete')}
          </button>
          <button type="button" onClick={cancel}>
            {t('explorer.cancel')}
          </button>
        </div>
      )}
      <ErrorLine message={action.error} className="toolbar-error" />
    </div>
  )
}

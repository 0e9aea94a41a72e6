import { setGoogleFontsEnabled } from '@eigenpal/docx-editor-core'
import { DocxEditor, type DocxEditorRef } from '@eigenpal/docx-editor-react'
import '@eigenpal/docx-editor-react/styles.css'
import zhCN from '@eigenpal/docx-editor-i18n/zh-CN'
import { useEffect, useRef, useState } from 'react'
import { dedupeMedia, normaliseEditorSave, numberNotesAsWord, openPackage } from '../../../../../../shared/office'
import { useI18n, type Locale } from '../../../../i18n'
import { ErrorLine } from '../../../../ui/ErrorLine'
import type { OfficeSession } from './session'

// Fonts come from the machine: the editor would otherwise fetch Google Fonts for every family it
// meets, which is a network request per document (nothing leaves the machine, spec 10/11).
setGoogleFontsEnabled(false)

/**
 * DOCX in `@eigenpal/docx-editor-react` (Apache-2.0; measured to reopen 13/13 real files and save
 * what LibreOffice and python-docx reopen). It holds the document in its own model, so while it
 * is shown its `save()` is the session's export. The caller decides read-only: a document with
 * what the editor would drop (charts, SmartArt, text boxes, …) never reaches it editable.
 */
export function DocxView(props: { session: OfficeSession; readOnly: boolean; dark: boolean; locale: Locale }) {
  const { t } = useI18n()
  const { session, readOnly } = props
  const editor = useRef<DocxEditorRef>(null)
  const host = useRef<HTMLDivElement>(null)
  // The editor numbers note references by their internal ids; it gets the package with the ids
  // Word's numbering gives (docx-notes.ts), so "1, 2, 3" in reading order whoever wrote the file.
  // Only ids change, so a save writes the same document; an unreadable package goes as it was.
  const [input, setInput] = useState<ArrayBuffer | null>(null)
  const [failed, setFailed] = useState<string | null>(null)

  useEffect(() => {
    let live = true
    const original = session.bytes
    numberNotesAsWord(original)
      .then((outcome) => (outcome.kind === 'renumbered' ? outcome.bytes : original))
      .catch(() => original)
      .then((bytes) => {
        if (live) setInput(bytes.slice().buffer)
      })
    return () => {
      live = false
    }
  }, [session])
  // The editor reports a change when it settles after loading too; only what follows a person's
  // own input (a key, a paste, a toolbar click) is an edit worth a version.
  const acted = useRef(false)

  useEffect(() => {
    const element = host.current
    if (!element || readOnly) return
    const mark = () => (acted.current = true)
    const events = ['beforeinput', 'keydown', 'paste', 'cut', 'drop', 'pointerdown'] as const
    for (const name of events) element.addEventListener(name, mark, true)
    // The original's part names: when the editor writes a picture again, the original name stays.
    const original = session.bytes
    let names: Promise<readonly string[]> | null = null
    session.setExporter(async () => {
      const saved = await editor.current?.save()
      if (!saved) return session.bytes
      names ??= openPackage(original).then((pkg) => pkg.names)
      // What the editor writes out of order or splits off (page breaks) is put back (docx-save.ts).
      return dedupeMedia(await normaliseEditorSave(new Uint8Array(saved), original), await names)
    })
    return () => {
      for (const name of events) element.removeEventListener(name, mark, true)
      session.setExporter(null)
    }
    // `input`: the host element exists only once the package is ready.
  }, [session, readOnly, input])

  if (failed !== null) {
    return <ErrorLine className="viewer-note viewer-error" message={`${t('office.corrupt')} ${failed}`} />
  }
  if (input === null) return <p className="viewer-note">{t('office.reading')}</p>
  return (
    <div ref={host} className="docx-view" data-testid="office-docx" data-readonly={readOnly || undefined}>
      <DocxEditor
        ref={editor}
        documentBuffer={input}
        mode={readOnly ? 'viewing' : 'editing'}
        readOnly={readOnly}
        colorMode={props.dark ? 'dark' : 'light'}
        // Its menus and toolbar speak the app's language (English is its default).
        {...(props.locale === 'zh-CN' ? { i18n: zhCN } : {})}
        showFileOpen={false}
        showHelpMenu={false}
        documentNameEditable={false}
        disableFindReplaceShortcuts={false}
        onChange={() => {
          if (acted.current && !readOnly) session.changed()
        }}
        onError={(error) => setFailed(error.message)}
      />
    </div>
  )
}

import CFB from 'cfb'
import { describe, expect, test } from 'vitest'
import { corpusFile, makeDocx, zipParts } from '../../../../test/support/office-fixtures'
import { inspectOffice } from './inspect'

function compound(streams: Record<string, Buffer>): Buffer {
  const container = CFB.utils.cfb_new()
  for (const [name, content] of Object.entries(streams)) CFB.utils.cfb_add(container, `/${name}`, content)
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array)
}

/** A Word FIB: wIdent 0xA5EC and the flags word at 0x0A. */
function fib(flags: number): Buffer {
  const word = Buffer.alloc(4096)
  word.writeUInt16LE(0xa5ec, 0)
  word.writeUInt16LE(flags, 0x0a)
  return word
}

/** BIFF8 globals: BOF, then (optionally) FILEPASS, then EOF. */
function biff(encrypted: boolean): Buffer {
  const record = (type: number, body: Buffer) => {
    const head = Buffer.alloc(4)
    head.writeUInt16LE(type, 0)
    head.writeUInt16LE(body.length, 2)
    return Buffer.concat([head, body])
  }
  return Buffer.concat([
    record(0x0809, Buffer.alloc(16)),
    ...(encrypted ? [record(0x002f, Buffer.alloc(54))] : []),
    record(0x000a, Buffer.alloc(0)),
    Buffer.alloc(4096),
  ])
}

function currentUser(token: number): Buffer {
  const atom = Buffer.alloc(64)
  atom.writeUInt32LE(token, 12)
  return atom
}

describe('inspectOffice', () => {
  test('legacy Word, Excel and PowerPoint files are password-protected exactly when their flags say so', async () => {
    expect(await inspectOffice('a.doc', compound({ WordDocument: fib(0) }))).toEqual({ state: 'ok', format: 'doc' })
    expect(await inspectOffice('a.doc', compound({ WordDocument: fib(0x0100) }))).toMatchObject({
      state: 'password-protected',
      format: 'doc',
    })
    expect(await inspectOffice('a.xls', compound({ Workbook: biff(false) }))).toEqual({ state: 'ok', format: 'xls' })
    expect(await inspectOffice('a.xls', compound({ Workbook: biff(true) }))).toMatchObject({
      state: 'password-protected',
    })
    const ppt = (token: number) =>
      compound({ 'PowerPoint Document': Buffer.alloc(4096), 'Current User': currentUser(token) })
    expect(await inspectOffice('a.ppt', ppt(0xe391c05f))).toEqual({ state: 'ok', format: 'ppt' })
    expect(await inspectOffice('a.ppt', ppt(0xf3d1c4df))).toMatchObject({ state: 'password-protected', format: 'ppt' })
  })

  test('the content decides the format: a renamed .doc is a DOC, text named .docx is damaged', async () => {
    expect(await inspectOffice('report.docx', compound({ WordDocument: fib(0) }))).toEqual({
      state: 'ok',
      format: 'doc',
    })
    expect(await inspectOffice('report.docx', Buffer.from('not a document'))).toMatchObject({
      state: 'corrupt',
      format: 'docx',
    })
    expect(await inspectOffice('x.pptx', Buffer.from(await makeDocx('<w:p/>')))).toMatchObject({
      state: 'ok',
      format: 'docx',
    })
    expect(await inspectOffice('x.rtf', Buffer.from('{\\rtf1 hello}'))).toEqual({ state: 'ok', format: 'rtf' })
  })

  test('ODF: its mimetype names the format, an encrypted manifest means a password', async () => {
    const odt = (manifest: string) =>
      zipParts({
        mimetype: 'application/vnd.oasis.opendocument.text',
        'META-INF/manifest.xml': manifest,
        'content.xml': '<office:document-content/>',
      })
    expect(await inspectOffice('a.odt', Buffer.from(await odt('<manifest:manifest/>')))).toEqual({
      state: 'ok',
      format: 'odt',
    })
    expect(
      await inspectOffice(
        'a.odt',
        Buffer.from(await odt('<manifest:file-entry><manifest:encryption-data/></manifest:file-entry>')),
      ),
    ).toMatchObject({ state: 'password-protected', format: 'odt' })
    const real = corpusFile('odfdo-example.odp')
    if (real) expect(await inspectOffice('example.odp', real)).toEqual({ state: 'ok', format: 'odp' })
  })

  test('a compound file that is none of the three is unsupported, a broken one corrupt', async () => {
    expect(await inspectOffice('a.doc', compound({ Other: Buffer.alloc(10) }))).toMatchObject({ state: 'unsupported' })
    const broken = compound({ WordDocument: fib(0) }).subarray(0, 600)
    expect((await inspectOffice('a.doc', broken)).state).toMatch(/corrupt/)
  })
})

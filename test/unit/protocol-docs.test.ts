import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { ACTIONS } from '../../src/shared/protocol'
import { PROTOCOL_DOC, renderProtocolTable, TABLE_END, TABLE_START, withTable } from '../../scripts/protocol-table'

describe('docs/protocol.md', () => {
  test('its action table is the one generated from the registry (npm run docs:protocol)', () => {
    const document = readFileSync(PROTOCOL_DOC, 'utf8')
    expect(document).toBe(withTable(document, renderProtocolTable()))
  })

  test('the table has one row per registered action', () => {
    const document = readFileSync(PROTOCOL_DOC, 'utf8')
    const table = document.slice(document.indexOf(TABLE_START), document.indexOf(TABLE_END))
    const documented = [...table.matchAll(/^\| `([a-z_.]+)`/gm)].map((match) => match[1])
    expect(documented).toEqual(Object.keys(ACTIONS))
  })
})

import { useI18n } from '../../../../../i18n'
import { Icon } from '../../../../../ui/Icon'
import { MenuButton } from '../../../../../ui/Menu'

export type StructureChange = 'insert-before' | 'insert-after' | 'delete'

/** The grid's "Rows and columns" menu: insert or delete as many rows or columns as are selected. */
export function StructureMenu(props: { onChange: (axis: 'row' | 'column', change: StructureChange) => void }) {
  const { t } = useI18n()
  return (
    <MenuButton
      label={t('office.sheetStructure')}
      icon={<Icon name="table" />}
      testId="sheet-structure"
      items={[
        {
          kind: 'item',
          label: t('office.sheetInsertRowsAbove'),
          shortcut: 'Ctrl+Shift+=',
          onSelect: () => props.onChange('row', 'insert-before'),
        },
        {
          kind: 'item',
          label: t('office.sheetInsertRowsBelow'),
          onSelect: () => props.onChange('row', 'insert-after'),
        },
        {
          kind: 'item',
          label: t('office.sheetDeleteRows'),
          shortcut: 'Ctrl+-',
          onSelect: () => props.onChange('row', 'delete'),
        },
        { kind: 'separator' },
        {
          kind: 'item',
          label: t('office.sheetInsertColumnsLeft'),
          shortcut: 'Ctrl+Alt+Shift+=',
          onSelect: () => props.onChange('column', 'insert-before'),
        },
        {
          kind: 'item',
          label: t('office.sheetInsertColumnsRight'),
          onSelect: () => props.onChange('column', 'insert-after'),
        },
        {
          kind: 'item',
          label: t('office.sheetDeleteColumns'),
          shortcut: 'Ctrl+Alt+-',
          onSelect: () => props.onChange('column', 'delete'),
        },
      ]}
    />
  )
}

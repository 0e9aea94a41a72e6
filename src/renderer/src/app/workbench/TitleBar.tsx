import type { ReactNode } from 'react'
import { LOCALES, useI18n } from '../../i18n'
import { Icon } from '../../ui/Icon'
import { MenuButton } from '../../ui/Menu'
import { displayChord } from './keys'
import './title-bar.css'

/** A compact bar: the project switcher, a search box that opens quick open, and the app menu. */
export function TitleBar(props: {
  switcher: ReactNode
  onQuickOpen: () => void
  onPalette: () => void
  onShortcuts: () => void
  onSettings: () => void
}) {
  const { t, locale, setLocale } = useI18n()
  return (
    <header className="title-bar">
      <span className="brand" aria-hidden="true">
        <Icon name="history" />
      </span>
      <h1 className="visually-hidden">{t('app.title')}</h1>
      {props.switcher}
      <button type="button" className="command-center" onClick={props.onQuickOpen} data-testid="command-center">
        <Icon name="search" />
        <span className="command-center-label">{t('titleBar.search')}</span>
        <kbd>{displayChord('Mod+P')}</kbd>
      </button>
      <MenuButton
        label={t('titleBar.menu')}
        icon={<Icon name="menu" />}
        testId="app-menu"
        className="app-menu"
        items={[
          {
            kind: 'item',
            label: t('command.palette'),
            shortcut: displayChord('Mod+Shift+P'),
            onSelect: props.onPalette,
          },
          { kind: 'item', label: t('command.quickOpen'), shortcut: displayChord('Mod+P'), onSelect: props.onQuickOpen },
          {
            kind: 'item',
            label: t('command.shortcuts'),
            shortcut: displayChord('Mod+/'),
            onSelect: props.onShortcuts,
            testId: 'menu-shortcuts',
          },
          { kind: 'item', label: t('command.settings'), onSelect: props.onSettings, testId: 'menu-settings' },
          { kind: 'separator' },
          { kind: 'heading', label: t('app.language') },
          ...LOCALES.map((option) => ({
            kind: 'radio' as const,
            label: option.label,
            lang: option.id,
            checked: option.id === locale,
            onSelect: () => setLocale(option.id),
          })),
        ]}
      />
    </header>
  )
}

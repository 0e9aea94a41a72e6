import { createContext, useContext } from 'react'
import { en, type MessageKey } from './en'
import { zhCN } from './zh-CN'

export type Locale = 'en' | 'zh-CN'
export type { MessageKey }

const CATALOGS: Record<Locale, Record<MessageKey, string>> = { en, 'zh-CN': zhCN }

export const LOCALES: ReadonlyArray<{ id: Locale; label: string }> = [
  { id: 'en', label: 'English' },
  { id: 'zh-CN', label: '简体中文' },
]

/** The system language decides until the user picks one. */
export function detectLocale(languages: readonly string[]): Locale {
  return languages.some((language) => language.toLowerCase().startsWith('zh')) ? 'zh-CN' : 'en'
}

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string

export function translator(locale: Locale): Translate {
  const catalog = CATALOGS[locale]
  return (key, params) =>
    catalog[key].replace(/\{(\w+)\}/g, (whole, name: string) =>
      params && name in params ? String(params[name]) : whole,
    )
}

/** Whether the catalogue has this key (for keys built from data, such as an engine failure's code and reason). */
export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(en, key)
}

/** The names of a message's `{parameters}` (the same in every catalogue; i18n.test.ts holds them equal). */
export function messageParameters(key: MessageKey): string[] {
  return [...en[key].matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '')
}

export const I18nContext = createContext<{ locale: Locale; t: Translate; setLocale: (locale: Locale) => void }>({
  locale: 'en',
  t: translator('en'),
  setLocale: () => {},
})

export function useI18n() {
  return useContext(I18nContext)
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  return `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10} ${units[unit]}`
}

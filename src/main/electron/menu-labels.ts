/**
 * The desktop shell's own words (application menu, quit confirmation, errors), in the languages the
 * renderer ships (spec 01: English and Simplified Chinese, following the system). The renderer's
 * i18n module lives on the DOM side, so the shell keeps this small table of its own.
 */
const en = {
  file: 'File',
  openFolder: 'Open Folder…',
  openRecent: 'Open Recent',
  noRecent: 'No Recent Folders',
  closeTab: 'Close Tab',
  settings: 'Settings…',
  quit: 'Quit Retrace',
  edit: 'Edit',
  view: 'View',
  toggleExplorer: 'Toggle Explorer',
  toggleChat: 'Toggle Chat',
  commandPalette: 'Command Palette…',
  goToFile: 'Go to File…',
  darkMode: 'Dark Mode',
  window: 'Window',
  help: 'Help',
  shortcuts: 'Keyboard Shortcuts',
  about: 'About Retrace',
  openDataFolder: 'Open Data Folder',
  quitTitle: 'Quit Retrace?',
  quitTurns: 'A turn is still running. Quitting stops it; what it changed so far stays recorded.',
  quitSaves: 'A save is still in progress. Quitting waits for it; an unsaved edit stays as a draft.',
  quitConfirm: 'Stop and Quit',
  cancel: 'Cancel',
  openFailedTitle: 'Cannot open this folder',
} as const

export type MenuLabels = { readonly [K in keyof typeof en]: string }

const zhCN: MenuLabels = {
  file: '文件',
  openFolder: '打开文件夹…',
  openRecent: '最近打开',
  noRecent: '没有最近的文件夹',
  closeTab: '关闭标签页',
  settings: '设置…',
  quit: '退出 Retrace',
  edit: '编辑',
  view: '视图',
  toggleExplorer: '显示/隐藏资源管理器',
  toggleChat: '显示/隐藏对话',
  commandPalette: '命令面板…',
  goToFile: '转到文件…',
  darkMode: '深色模式',
  window: '窗口',
  help: '帮助',
  shortcuts: '键盘快捷键',
  about: '关于 Retrace',
  openDataFolder: '打开数据文件夹',
  quitTitle: '退出 Retrace？',
  quitTurns: '仍有一个回合正在运行。退出会停止它；它已做的更改仍有记录。',
  quitSaves: '仍有保存正在进行。退出会等待它完成；未保存的编辑会保留为草稿。',
  quitConfirm: '停止并退出',
  cancel: '取消',
  openFailedTitle: '无法打开此文件夹',
}

/** The same rule as the renderer's `detectLocale`: any Chinese preference picks 简体中文. */
export function menuLabels(preferredLanguages: readonly string[]): MenuLabels {
  return preferredLanguages.some((language) => language.toLowerCase().startsWith('zh')) ? zhCN : en
}

import { useEffect, useRef } from 'react'
import { AppCommand, type MenuCommandId } from '../../../shared/app-command'

export interface DesktopCommandHandlers {
  /** A menu item: the registered command of the same id. */
  run(id: MenuCommandId): void
  /** Show a project the shell opened; `open` is a root-relative file to open in a tab. */
  showProject(projectId: string, open: string | null): void
}

/**
 * Commands from the desktop shell (application menu, second launch, a file opened with Retrace),
 * validated and dispatched to the command registry the palette and keyboard use. Browser mode
 * has no shell commands, so this does nothing there.
 */
export function useDesktopCommands(handlers: DesktopCommandHandlers): void {
  const latest = useRef(handlers)
  useEffect(() => {
    latest.current = handlers
  })
  useEffect(() => {
    const bridge = window.retraceBridge
    if (!bridge) return
    return bridge.onCommand((raw) => {
      const parsed = AppCommand.safeParse(raw)
      if (!parsed.success) return
      const command = parsed.data
      if (command.kind === 'run') latest.current.run(command.command)
      else latest.current.showProject(command.project_id, command.open)
    })
  }, [])
}

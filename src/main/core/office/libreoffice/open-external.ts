import { spawn } from 'node:child_process'

/**
 * "Open in LibreOffice": the person's own LibreOffice (their profile, their macro security) opens
 * the project file as an external editor. Retrace does not wait for it; its saves reach the project
 * like any outside edit and show up as an external change.
 */
export function openInLibreOffice(soffice: string, file: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(soffice, ['--nologo', '--norestore', file], {
      env,
      detached: true,
      stdio: 'ignore',
      windowsHide: false,
    })
    child.once('error', reject)
    child.once('spawn', () => {
      child.unref()
      resolve()
    })
  })
}

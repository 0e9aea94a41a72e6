import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/**
 * Who a process id is, so a recorded id is never mistaken for a later process that reused it.
 * On Linux: the boot id and the start time in clock ticks since boot (`/proc/<pid>/stat` field
 * 22) — a pair no two processes share. Elsewhere: `ps`'s start time, to the second (weaker, and
 * said so where it is used).
 */
export function processStartIdentity(pid: number): string | null {
  const stat = procStat(pid)
  if (stat) return stat.state === 'Z' ? null : `${bootId()}:${stat.startTime}`
  if (procAvailable()) return null
  try {
    const started = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { timeout: 2_000, stdio: 'pipe' })
      .toString('utf8')
      .trim()
    return started === '' ? null : `ps:${started}`
  } catch {
    return null
  }
}

/** The process is running (a zombie is not: it only waits for its parent to read its status). */
export function isAlive(pid: number): boolean {
  if (procAvailable()) {
    const stat = procStat(pid)
    return stat !== null && stat.state !== 'Z'
  }
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * The live members of a process group, each with whether its environment carries `marker`
 * (`NAME=value`). Null where `/proc` cannot be read (then only the leader can be checked).
 */
export function groupMembers(pgid: number, marker: string): Array<{ pid: number; marked: boolean }> | null {
  if (!procAvailable()) return null
  const members: Array<{ pid: number; marked: boolean }> = []
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return null
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    const pid = Number(entry)
    const stat = procStat(pid)
    if (!stat || stat.pgrp !== pgid || stat.state === 'Z') continue
    members.push({ pid, marked: environHas(pid, marker) })
  }
  return members
}

/** The group has at least one member (zombies included: the kernel still holds the group). */
export function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function environHas(pid: number, marker: string): boolean {
  try {
    // Bounded: an environment is at most a few hundred KiB; `\0` separates the entries.
    return readFileSync(`/proc/${pid}/environ`).toString('utf8').split('\0').includes(marker)
  } catch {
    return false
  }
}

let procKnown: boolean | undefined
function procAvailable(): boolean {
  if (procKnown === undefined) procKnown = procStat(process.pid) !== null
  return procKnown
}

let boot: string | undefined
function bootId(): string {
  if (boot === undefined) {
    try {
      boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    } catch {
      boot = 'unknown-boot'
    }
  }
  return boot
}

/** Fields of `/proc/<pid>/stat` after the command name (which may itself hold spaces and ')'). */
function procStat(pid: number): { state: string; pgrp: number; startTime: string } | null {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return null
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  // After the name: state(3) ppid(4) pgrp(5) … starttime(22) — index = field number - 3.
  const state = fields[0]
  const pgrp = Number(fields[2])
  const startTime = fields[19]
  if (state === undefined || startTime === undefined || !Number.isInteger(pgrp)) return null
  return { state, pgrp, startTime }
}

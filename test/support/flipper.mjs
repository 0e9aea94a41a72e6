// Races the file system like a hostile local process, until killed. argv: <mode> <folder> <name> <outside>
// - dir-symlink: flips <folder>/<name> between its real folder and a symlink to <outside>;
// - leaf-fifo: flips the file <folder>/<name> with a FIFO (both renamed in and out, no gap).
// Each flip holds ~300 µs.
import { renameSync, symlinkSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { mkfifoSync } from './mkfifo.mjs'

const [mode, folder, name, outside] = process.argv.slice(2)
const real = join(folder, name)
const parked = join(folder, `.parked-${name}`)
const pause = new Int32Array(new SharedArrayBuffer(4))
const sleep = (microseconds) => Atomics.wait(pause, 0, 0, microseconds / 1000)
let taken = 0

// In a gap where the name is free (after the real folder is parked, or after the link is
// removed) the engine may create a folder of that name — a nested write creates its missing
// parents. That folder is moved aside, kept in the project, and reported; then the flip goes on.
function moveAside() {
  const aside = join(folder, `.taken-${name}-${taken++}`)
  renameSync(real, aside)
  process.stdout.write(`moved ${aside}\n`)
}

function flipFolder() {
  renameSync(real, parked)
  for (;;) {
    try {
      symlinkSync(outside, real)
      break
    } catch (error) {
      if (error.code !== 'EEXIST') throw error
      moveAside()
    }
  }
  sleep(300)
  unlinkSync(real)
  for (;;) {
    try {
      renameSync(parked, real)
      break
    } catch (error) {
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST' && error.code !== 'EISDIR') throw error
      moveAside()
    }
  }
  sleep(300)
}

const fifo = join(folder, `.fifo-${name}`)
function flipLeaf() {
  renameSync(real, parked)
  renameSync(fifo, real)
  sleep(300)
  renameSync(real, fifo)
  renameSync(parked, real)
  sleep(300)
}

if (mode === 'leaf-fifo') mkfifoSync(fifo)
process.stdout.write('flipping\n')
const parent = process.ppid
for (let i = 1; ; i++) {
  if (mode === 'dir-symlink') flipFolder()
  else flipLeaf()
  // A test runner killed mid-test leaves no flipper behind.
  if (i % 100 === 0 && process.ppid !== parent) process.exit(0)
}

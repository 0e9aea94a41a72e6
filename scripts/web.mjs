// `npm run web -- <folder> [--port N] [--data-dir D]`: build if needed, then start browser mode.
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { ensureBuilt, repoRoot } from './ensure-build.mjs'

ensureBuilt()
createRequire(import.meta.url)(join(repoRoot, 'out', 'main', 'web.js'))

import { z } from 'zod'

// Zod compiles object parsers with `new Function` unless told not to; the app's CSP forbids eval,
// and zod's probe for it would be reported as a violation. Imported first by main.tsx.
z.config({ jitless: true })

/**
 * The client's React context lives in ui/ (features sit below app/ and may not import it). This
 * path stays for the features that still import it from here (documents, projects,
 * settings); the renderer fence allows exactly this file until they move.
 */
export { ClientContext, useClient } from '../ui/client-context'

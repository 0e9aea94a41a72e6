import { createContext, useContext } from 'react'
import type { RequestClient } from '../transport'

export const ClientContext = createContext<RequestClient | null>(null)

export function useClient(): RequestClient {
  const client = useContext(ClientContext)
  if (!client) throw new Error('useClient outside <ClientContext.Provider>')
  return client
}

/** Callers with the same key while a first one runs share its promise (two viewers, one conversion). */
export async function singleFlight<T>(
  flights: Map<string, Promise<T>>,
  key: string,
  start: () => Promise<T>,
): Promise<T> {
  const running = flights.get(key)
  if (running) return running
  const started = start()
  flights.set(key, started)
  try {
    return await started
  } finally {
    flights.delete(key)
  }
}

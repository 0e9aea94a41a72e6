import { useEffect, useState } from 'react'

/** Whole seconds since `running` became true (progress is shown only past a second, spec 10). */
export function useElapsed(running: boolean): number {
  const [seconds, setSeconds] = useState(0)
  useEffect(() => {
    if (!running) return
    const started = Date.now()
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 250)
    return () => {
      clearInterval(timer)
      setSeconds(0)
    }
  }, [running])
  return running ? seconds : 0
}

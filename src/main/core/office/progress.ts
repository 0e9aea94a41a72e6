import { randomUUID } from 'node:crypto'
import type { EventBus, EventOwner } from '../events'

type Phase = 'queued' | 'starting-engine' | 'converting' | 'publishing'

/**
 * `office.progress` for a preview or conversion that takes longer than a second: the current
 * phase and the elapsed time, every second, then `done` or `failed`. Quick operations send nothing.
 */
export function trackProgress(
  events: EventBus,
  owner: EventOwner,
  operation: 'preview' | 'convert',
  path: string,
  thresholdMs = 1000,
) {
  const operationId = randomUUID()
  const started = Date.now()
  let phase: Phase = 'queued'
  let announced = false
  let finished = false
  const emit = (current: Phase | 'done' | 'failed') =>
    events.emit('office.progress', owner, {
      operation_id: operationId,
      operation,
      path,
      phase: current,
      elapsed_ms: Date.now() - started,
    })
  const tick = () => {
    announced = true
    emit(phase)
  }
  const first = setTimeout(() => {
    tick()
    repeat = setInterval(tick, 1000)
  }, thresholdMs)
  let repeat: ReturnType<typeof setInterval> | undefined
  return {
    operationId,
    phase(next: Phase) {
      phase = next
    },
    finish(success: boolean) {
      if (finished) return
      finished = true
      clearTimeout(first)
      clearInterval(repeat)
      if (announced) emit(success ? 'done' : 'failed')
    },
  }
}

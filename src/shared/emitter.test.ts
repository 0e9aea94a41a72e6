import { describe, expect, test } from 'vitest'
import { Emitter } from './emitter'

describe('Emitter', () => {
  test('every listener hears each value until its subscription is disposed or called', () => {
    const emitter = new Emitter<number>()
    const heard: string[] = []
    const a = emitter.on((value) => heard.push(`a${value}`))
    const b = emitter.on((value) => heard.push(`b${value}`))
    emitter.fire(1)
    a()
    b.dispose()
    b.dispose()
    emitter.fire(2)
    expect(heard).toEqual(['a1', 'b1'])
    expect(emitter.listenerCount).toBe(0)
  })

  test('the same function subscribed twice is two subscriptions: dropping one keeps the other', () => {
    const emitter = new Emitter<string>()
    const heard: string[] = []
    const listener = (value: string) => heard.push(value)
    const first = emitter.on(listener)
    emitter.on(listener)
    first()
    emitter.fire('x')
    expect(heard).toEqual(['x'])
  })

  test('a listener removed while firing is not called; one added while firing waits for the next value', () => {
    const emitter = new Emitter<number>()
    const heard: string[] = []
    let late: (() => void) | undefined
    emitter.on((value) => {
      heard.push(`first${value}`)
      second()
      late ??= emitter.on((v) => heard.push(`late${v}`))
    })
    const second = emitter.on((value) => heard.push(`second${value}`))
    emitter.fire(1)
    emitter.fire(2)
    expect(heard).toEqual(['first1', 'first2', 'late2'])
  })

  test('a throwing listener is reported and the others still hear the value', () => {
    const errors: unknown[] = []
    const emitter = new Emitter<number>((error) => errors.push(error))
    const heard: number[] = []
    emitter.on(() => {
      throw new Error('listener bug')
    })
    emitter.on((value) => heard.push(value))
    emitter.fire(7)
    expect(heard).toEqual([7])
    expect(errors).toEqual([new Error('listener bug')])
  })

  test('dispose drops every listener', () => {
    const emitter = new Emitter<number>()
    const heard: number[] = []
    emitter.on((value) => heard.push(value))
    emitter.dispose()
    emitter.fire(1)
    expect(heard).toEqual([])
  })
})

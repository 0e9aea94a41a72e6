import type { z } from 'zod'

/**
 * `app` actions need no project; `project` actions require `owner.project_id` and act inside that
 * project's root only.
 */
export type ActionScope = 'app' | 'project'

export interface ActionDefinition<
  Name extends string = string,
  Scope extends ActionScope = ActionScope,
  Payload extends z.ZodType = z.ZodType,
  Result extends z.ZodType = z.ZodType,
> {
  readonly name: Name
  readonly scope: Scope
  /** Mutating actions carry an idempotency key (spec 02 "Idempotent mutations"). */
  readonly mutating: boolean
  readonly payload: Payload
  readonly result: Result
  /**
   * `new`: the result's `path` names a file the action created (a conversion's output), not the
   * request's file, so the client does not hold it to the request's path as it does otherwise.
   */
  readonly resultPath?: 'new'
}

export function defineAction<
  Name extends string,
  Scope extends ActionScope,
  Payload extends z.ZodType,
  Result extends z.ZodType,
>(
  name: Name,
  definition: Omit<ActionDefinition<Name, Scope, Payload, Result>, 'name'>,
): ActionDefinition<Name, Scope, Payload, Result> {
  return { name, ...definition }
}

import type {
  ActionName,
  Outcome,
  Owner,
  ParsedPayloadOf,
  ProjectSummary,
  ResultOf,
  ScopeOf,
} from '../../../shared/protocol'

/**
 * What every domain module's handlers receive. The handler table is assembled from the modules by
 * the composition root and checked complete at compile time (`satisfies ActionHandlers`).
 */
export interface AppRequestContext {
  readonly owner: Owner
  readonly idempotencyKey: string | undefined
}

export interface ProjectRequestContext extends AppRequestContext {
  /** The project the request is owned by (resolved and checked by the dispatcher). */
  readonly project: ProjectSummary
}

type ContextFor<A extends ActionName> = ScopeOf<A> extends 'project' ? ProjectRequestContext : AppRequestContext

export type ActionHandler<A extends ActionName> = (
  payload: ParsedPayloadOf<A>,
  context: ContextFor<A>,
) => Promise<Outcome<ResultOf<A>>>

export type ActionHandlers = { [A in ActionName]: ActionHandler<A> }

/** The part of the handler table one module owns. */
export type ModuleActions<A extends ActionName> = { [K in A]: ActionHandler<K> }

export { blobOf, foldReceipts, isNoChange, operationOf, type ChangeActor, type NetChange } from './fold'
export { countChanges, type CountedChange } from './stats'
export { journalPositions, sourceOrder, type ChangePosition, type SourceOrder } from './sources'

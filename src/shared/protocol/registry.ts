import type { z } from 'zod'
import type { ActionDefinition } from './define-action'
import { appInfo, projectList, projectOpen, projectPick } from './actions/project'
import {
  filesCopy,
  filesCreate,
  filesDelete,
  filesList,
  filesRead,
  filesReadBytes,
  filesRename,
  filesWrite,
} from './actions/files'
import { journalTransactions } from './actions/journal'
import { filesSearch } from './actions/file-search'
import { filesSearchContent } from './actions/content-search'
import { filesHistory, filesReadVersion, filesRestoreVersion } from './actions/file-history'
import {
  sessionAbort,
  sessionAlign,
  sessionApprove,
  sessionArchiveBranch,
  sessionBranch,
  sessionCreate,
  sessionFork,
  sessionList,
  sessionPrompt,
  sessionPurge,
  sessionResume,
  sessionSwitchBranch,
  sessionTranscript,
  sessionUpdate,
} from './actions/session'
import {
  settingsActivateProvider,
  settingsProviders,
  settingsRemoveProvider,
  settingsSaveProvider,
  settingsSnapshots,
  settingsTestProvider,
} from './actions/settings'
import { historyApply, historyPlan } from './actions/history'
import { reviewDiff, reviewDocument, reviewFiles, reviewPreview } from './actions/review'
import { gitStatus, historyConflictDiff } from './actions/workbench'
import {
  officeConvert,
  officeInspect,
  officeInstall,
  officeOpenExternal,
  officePackInstall,
  officePreview,
  officeStatus,
} from './actions/office'

/** Every action of the protocol. Both sides derive their types from this one table. */
export const ACTIONS = {
  [appInfo.name]: appInfo,
  [projectOpen.name]: projectOpen,
  [projectList.name]: projectList,
  [projectPick.name]: projectPick,
  [filesList.name]: filesList,
  [filesRead.name]: filesRead,
  [filesReadBytes.name]: filesReadBytes,
  [filesWrite.name]: filesWrite,
  [filesCreate.name]: filesCreate,
  [filesRename.name]: filesRename,
  [filesCopy.name]: filesCopy,
  [filesDelete.name]: filesDelete,
  [filesSearch.name]: filesSearch,
  [filesSearchContent.name]: filesSearchContent,
  [filesHistory.name]: filesHistory,
  [filesReadVersion.name]: filesReadVersion,
  [filesRestoreVersion.name]: filesRestoreVersion,
  [journalTransactions.name]: journalTransactions,
  [sessionCreate.name]: sessionCreate,
  [sessionList.name]: sessionList,
  [sessionTranscript.name]: sessionTranscript,
  [sessionUpdate.name]: sessionUpdate,
  [sessionPrompt.name]: sessionPrompt,
  [sessionAbort.name]: sessionAbort,
  [sessionApprove.name]: sessionApprove,
  [sessionBranch.name]: sessionBranch,
  [sessionSwitchBranch.name]: sessionSwitchBranch,
  [sessionArchiveBranch.name]: sessionArchiveBranch,
  [sessionFork.name]: sessionFork,
  [sessionAlign.name]: sessionAlign,
  [sessionPurge.name]: sessionPurge,
  [sessionResume.name]: sessionResume,
  [settingsProviders.name]: settingsProviders,
  [settingsSaveProvider.name]: settingsSaveProvider,
  [settingsRemoveProvider.name]: settingsRemoveProvider,
  [settingsActivateProvider.name]: settingsActivateProvider,
  [settingsTestProvider.name]: settingsTestProvider,
  [settingsSnapshots.name]: settingsSnapshots,
  [historyPlan.name]: historyPlan,
  [historyApply.name]: historyApply,
  [reviewFiles.name]: reviewFiles,
  [reviewDiff.name]: reviewDiff,
  [reviewPreview.name]: reviewPreview,
  [reviewDocument.name]: reviewDocument,
  [gitStatus.name]: gitStatus,
  [historyConflictDiff.name]: historyConflictDiff,
  [officeStatus.name]: officeStatus,
  [officeInstall.name]: officeInstall,
  [officePackInstall.name]: officePackInstall,
  [officeInspect.name]: officeInspect,
  [officePreview.name]: officePreview,
  [officeConvert.name]: officeConvert,
  [officeOpenExternal.name]: officeOpenExternal,
} as const satisfies Record<string, ActionDefinition>

export type ActionName = keyof typeof ACTIONS
export type PayloadOf<A extends ActionName> = z.input<(typeof ACTIONS)[A]['payload']>
export type ParsedPayloadOf<A extends ActionName> = z.output<(typeof ACTIONS)[A]['payload']>
export type ResultOf<A extends ActionName> = z.output<(typeof ACTIONS)[A]['result']>
export type ScopeOf<A extends ActionName> = (typeof ACTIONS)[A]['scope']

export function isActionName(name: string): name is ActionName {
  return Object.hasOwn(ACTIONS, name)
}

export function actionDefinition<A extends ActionName>(name: A): (typeof ACTIONS)[A] {
  return ACTIONS[name]
}

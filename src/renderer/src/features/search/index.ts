export { SearchSideBar, SearchView } from './SearchView'
export { searchCommands } from './commands'
export { openMatch, type MatchTabs, type MatchTarget } from './open-match'
export { hideSearchView, searchViewState, showSearchView } from './search-view-state'

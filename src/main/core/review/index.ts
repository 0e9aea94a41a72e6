export { categoryOf, LARGE_FILE_BYTES } from './categories'
export { branchReceipts, rowsFromReceipts, turnReceipts, type ReviewRow } from './scope-candidates'
export { filterAndSort, pageReviewFiles, REVIEW_PAGE_SIZE, type ReviewPaging } from './review-files'
export { DIFF_PAGE_BYTES, DIFF_PAGE_LINES, DIFF_TIME_BUDGET_MS, pageReviewDiff } from './review-diff'

export { ReviewPane, commentsPrompt } from './ReviewPane'

import './zod-config'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './app/App'
import { connectToHost } from './transport'
import '@vscode/codicons/dist/codicon.css'

const client = connectToHost((dropped) => {
  // Dropped frames are expected after cancellation or timeouts; they are never shown as errors.
  console.debug('retrace: dropped a frame', dropped)
})

const container = document.getElementById('root')
if (!container) throw new Error('index.html has no #root')
createRoot(container).render(
  <StrictMode>
    <App client={client} />
  </StrictMode>,
)

import { useEffect, useMemo, useState } from 'react'
import { useI18n } from '../../../../i18n'
import { ErrorLine } from '../../../../ui/ErrorLine'
import { blobOf, bytesOf, mountReactView } from '../image/common'
import type { DocumentAdapter, MountedDocument } from '../types'
import '../image/image.css'
import '../psd/psd.css'

/**
 * Audio and video with the browser's own player (spec 09): the file's bytes, fetched once through
 * the byte transfer, as a blob URL — seekable, nothing streamed from elsewhere (`media-src 'self'
 * blob:`). When the browser cannot play the codec the view says so rather than showing a dead
 * player.
 */
export const mediaAdapter: DocumentAdapter = {
  async mount(container, options): Promise<MountedDocument> {
    return mountReactView(container, options, 'media-adapter', (content) => (
      <MediaView bytes={bytesOf(content)} mime={content.kind === 'bytes' ? content.mime : ''} path={options.path} />
    ))
  },
}

function MediaView(props: { bytes: Uint8Array; mime: string; path: string }) {
  const { t } = useI18n()
  const url = useMemo(() => URL.createObjectURL(blobOf(props.bytes, props.mime)), [props.bytes, props.mime])
  useEffect(() => () => URL.revokeObjectURL(url), [url])
  // The player's failure as its MediaError code (null: none yet), so the sentence is built at
  // render time and follows a language switch.
  const [failure, setFailure] = useState<{ code: number | undefined } | null>(null)
  const Player = props.mime.startsWith('video/') ? 'video' : 'audio'
  const error =
    failure &&
    t('media.failed', {
      mime: props.mime,
      reason:
        failure.code === MediaError.MEDIA_ERR_SRC_NOT_SUPPORTED
          ? t('media.unsupported')
          : failure.code === MediaError.MEDIA_ERR_DECODE
            ? t('media.decode')
            : t('media.other'),
    })
  return (
    <div className="media-view" data-testid="media-box">
      {error ? (
        <ErrorLine className="viewer-note viewer-error" testId="media-error" message={error} />
      ) : (
        <Player
          src={url}
          controls
          preload="metadata"
          aria-label={props.path}
          data-testid="media-player"
          onError={(event) => setFailure({ code: event.currentTarget.error?.code })}
        />
      )}
    </div>
  )
}

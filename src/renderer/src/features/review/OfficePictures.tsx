import type { PptxSlideDiff } from '../../../../shared/protocol'
import { useI18n } from '../../i18n'
import { DeckSlideThumbnail, DocumentHost, PagesPackOffer, resolveAdapter, type DocumentContent } from '../documents'
import type { OfficeVersion, OfficeVersions } from './office-versions'

/** Wide enough to read a title, small enough that before and after sit side by side in a 400 px pane (1024 and 800 px windows). */
const THUMBNAIL_WIDTH = 184

/**
 * The before and after pictures of one slide of a deck's diff: LibreOffice's page N for slide N
 * when an engine drew the version, else the built-in approximate rendering (said so in the
 * caption). A slide that exists on one side only has that side's picture.
 */
export function SlidePictures(props: { slide: PptxSlideDiff; versions: OfficeVersions }) {
  const { t } = useI18n()
  const { slide, versions } = props
  const number = slide.after_index ?? slide.before_index ?? 0
  const sides = [
    { side: 'before' as const, index: slide.before_index, version: versions.before },
    { side: 'after' as const, index: slide.after_index, version: versions.after },
  ].filter(
    (entry): entry is { side: 'before' | 'after'; index: number; version: OfficeVersion } => entry.index !== null,
  )
  return (
    <div className="review-slide-pictures" role="group" aria-label={t('review.slidePictures', { index: number })}>
      {sides.map(({ side, index, version }) => {
        const label = t(side === 'before' ? 'review.slideBefore' : 'review.slideAfter', { index })
        return (
          <figure key={side} className="review-slide-picture" data-side={side}>
            <figcaption>
              {t(`review.${side}`)}
              {version.kind === 'ready' && version.pages.kind !== 'converting' && (
                <span className="review-picture-engine">
                  {' · '}
                  {t(version.pages.kind === 'pdf' ? 'review.picturesBy.libreoffice' : 'review.picturesBy.builtin')}
                </span>
              )}
            </figcaption>
            <SlidePicture version={version} index={index} label={label} />
          </figure>
        )
      })}
    </div>
  )
}

function SlidePicture(props: { version: OfficeVersion; index: number; label: string }) {
  const { t } = useI18n()
  const { version, index, label } = props
  if (version.kind === 'loading') return <p className="review-note">{t('review.loading')}</p>
  if (version.kind !== 'ready') return <p className="review-note">{t('review.absent')}</p>
  return (
    <DeckSlideThumbnail
      deck={version.bytes}
      pdf={version.pages.kind === 'pdf' ? version.pages.bytes : null}
      slide={index}
      width={THUMBNAIL_WIDTH}
      label={label}
    />
  )
}

/**
 * "Pages" of a DOCX/XLSX/PPTX row: LibreOffice's rendering of each recorded version, read-only in
 * the PDF reader, before and after side by side. Without an engine it says what would draw them.
 */
export function OfficePages(props: {
  versions: OfficeVersions
  path: string
  projectId: string
  /** The pack was installed: ask for the pages again. */
  onEngineInstalled: () => void
}) {
  const { t } = useI18n()
  const noEngine = [props.versions.before, props.versions.after].some(
    (version) =>
      version.kind === 'ready' && version.pages.kind === 'unavailable' && version.pages.reason === 'no-engine',
  )
  return (
    <div className="review-preview-frame" data-testid="review-office-pages">
      <div className="review-preview">
        {(['before', 'after'] as const).map((side) => (
          <figure key={side} className="review-preview-side" data-testid={`review-preview-${side}`}>
            <figcaption>{t(`review.${side}`)}</figcaption>
            <VersionPagesView version={props.versions[side]} path={props.path} side={side} />
          </figure>
        ))}
      </div>
      {noEngine && (
        <PagesPackOffer projectId={props.projectId} path={props.path} onInstalled={props.onEngineInstalled} />
      )}
    </div>
  )
}

function VersionPagesView(props: { version: OfficeVersion; path: string; side: 'before' | 'after' }) {
  const { t } = useI18n()
  const { version } = props
  if (version.kind === 'loading') return <p className="review-note">{t('review.loading')}</p>
  if (version.kind === 'absent') return <p className="review-note">{t('review.absent')}</p>
  if (version.kind === 'failed') return <p className="review-note">{t('review.pagesUnavailable', { message: '' })}</p>
  const { pages } = version
  if (pages.kind === 'converting')
    return (
      <p className="review-note" role="status">
        {t('review.pagesConverting')}
      </p>
    )
  if (pages.kind === 'unavailable')
    return (
      <p className="review-note" role="note" data-reason={pages.reason}>
        {pages.reason === 'no-engine'
          ? t('review.pagesNeedEngine')
          : t('review.pagesUnavailable', { message: pages.message })}
      </p>
    )
  const label = t('review.pagesOf', { path: props.path, side: t(`review.${props.side}`) })
  const entry = resolveAdapter({ kind: 'binary', mime: 'application/pdf', path: label, size: pages.bytes.length })
  const content: DocumentContent = { kind: 'bytes', bytes: pages.bytes, mime: 'application/pdf' }
  return entry ? (
    <DocumentHost entry={entry} content={content} revision={props.side} path={label} readOnly size="compact" />
  ) : null
}

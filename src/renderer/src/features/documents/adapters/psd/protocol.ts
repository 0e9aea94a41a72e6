/** Messages between the PSD view and its worker (psd.worker.ts). */
export interface PsdLayerNode {
  readonly id: number
  readonly name: string
  readonly hidden: boolean
  /** 0–100. */
  readonly opacity: number
  readonly blendMode: string
  readonly bounds: { readonly left: number; readonly top: number; readonly width: number; readonly height: number }
  readonly group: boolean
  /** A text layer's text. */
  readonly text?: string
  readonly children?: readonly PsdLayerNode[]
}

/**
 * Where the first picture comes from: the saved composite, the embedded thumbnail or the visible
 * layers stacked because the composite is empty (`stacked`), or because the file was saved without
 * one ("Maximize compatibility" off: `layers`).
 */
export type PsdSource = 'composite' | 'thumbnail' | 'stacked' | 'layers'

export type PsdRequest =
  | { readonly kind: 'open'; readonly bytes: ArrayBuffer }
  /** Re-composite the visible layers with these layer ids hidden. */
  | { readonly kind: 'composite'; readonly hidden: readonly number[] }

export type PsdResponse =
  | {
      readonly kind: 'opened'
      readonly width: number
      readonly height: number
      readonly layers: readonly PsdLayerNode[]
      readonly image: ImageBitmap | null
      readonly source: PsdSource
      readonly ms: number
    }
  | { readonly kind: 'composited'; readonly image: ImageBitmap; readonly ms: number }
  | { readonly kind: 'failed'; readonly reason: 'color-mode' | 'depth' | 'other'; readonly message: string }

// Types for the parts of module-fences.mjs that tests import (test/layering.test.ts).
export declare const CORE_LAYERS: Record<string, readonly string[]>
export declare function layerCycle(layers: Record<string, readonly string[]>): string[] | null

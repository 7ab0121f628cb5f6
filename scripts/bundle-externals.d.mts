/** Packages left out of the bundles (scripts/bundle-externals.mjs). */
export declare const EXTERNAL: string[]

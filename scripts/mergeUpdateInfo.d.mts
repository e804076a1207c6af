// Types for the tests that import scripts/mergeUpdateInfo.mjs.
export declare function mergeUpdateInfo(texts: string[]): string;

// Types for the tests that import scripts/desktopResources.mjs.
export declare const projectRoot: string;
export declare const defaultStagingDir: string;
export declare const SHIPPED_MODULES: ReadonlyArray<{ specifier: string; assets: ReadonlyArray<{ from: string; to: string }> }>;
export declare function nodeBinaryPath(resourcesDir: string, platform?: NodeJS.Platform): string;
export declare function stageDesktopResources(options?: { root?: string; outDir?: string; platform?: NodeJS.Platform; arch?: string; nodeBinary?: string }): Promise<string>;

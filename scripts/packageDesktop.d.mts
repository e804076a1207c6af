// Types for the tests that import scripts/packageDesktop.mjs.
export type BuilderConfig = Record<string, unknown> & { publish?: Array<Record<string, string>> | null };
export declare function desktopBuildOverrides(env?: Record<string, string | undefined>): BuilderConfig;
export declare function releaseSummary(config: BuilderConfig, env?: Record<string, string | undefined>): string[];

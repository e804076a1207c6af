// madge ships no types; this is the slice of its API the cycle check uses.
declare module 'madge' {
  interface MadgeConfig {
    baseDir?: string;
    fileExtensions?: string[];
    tsConfig?: string;
    detectiveOptions?: Record<string, { skipTypeImports?: boolean; skipAsyncImports?: boolean }>;
  }
  interface MadgeResult {
    circular(): string[][];
    warnings(): { skipped: string[] };
  }
  export default function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
}

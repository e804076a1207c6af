import { runCli } from '../program';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in this process on `dataDir`, as `tooldeck --data-dir <dataDir> …argv`, with an empty environment. */
export async function runTooldeck(dataDir: string, argv: readonly string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['--data-dir', dataDir, ...argv], { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) }, {});
  return { code, stdout, stderr };
}

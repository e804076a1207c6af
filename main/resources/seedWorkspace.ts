import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Where the example workspace ships: `examples/workspace` of the source tree (development, the CLI
 * run from a checkout), or under the app's resources folder in a packaged build.
 */
export function findExamplesDir(): string | undefined {
  const candidates: string[] = [];
  for (let dir = import.meta.dirname, i = 0; i < 5; i++, dir = dirname(dir)) candidates.push(join(dir, 'examples', 'workspace'));
  const resourcesPath = (process as { resourcesPath?: string }).resourcesPath;
  if (resourcesPath) candidates.push(join(resourcesPath, 'examples', 'workspace'));
  return candidates.find((candidate) => existsSync(candidate));
}

/**
 * Creates the workspace folder on first use, with the example files (and their `evals/`) in it. A folder that exists is
 * left alone, even empty: the user may have deleted the examples on purpose. Returns whether it seeded.
 */
export async function seedWorkspace(dir: string, examplesDir: string | undefined = findExamplesDir()): Promise<boolean> {
  if (existsSync(dir)) return false;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (!examplesDir) return false;
  for (const name of await readdir(examplesDir)) {
    if (/\.(ya?ml)$|\.claw-describe\.json$/i.test(name)) await copyFile(join(examplesDir, name), join(dir, name));
  }
  // The example's eval suites: the workspace reads evals/*.yml as EvalSuites.
  const evals = join(examplesDir, 'evals');
  if (existsSync(evals)) {
    await mkdir(join(dir, 'evals'), { recursive: true, mode: 0o700 });
    for (const name of await readdir(evals)) if (/\.ya?ml$/i.test(name)) await copyFile(join(evals, name), join(dir, 'evals', name));
  }
  return true;
}

import { realpath } from 'node:fs/promises';
import { dirname, posix, relative, resolve, sep } from 'node:path';
import { AppError } from '../../shared/errors';
import { WorkspacePath } from '../../shared/resources/workspace';

/** `a\b.yaml`, `./a/b.yaml` → `a/b.yaml`; anything that leaves the folder is refused. */
export function normalizeWorkspacePath(path: string): string {
  const checked = WorkspacePath.safeParse(path.replace(/\\/g, '/'));
  if (!checked.success) throw new AppError('InvalidInput', `"${path}" ${checked.error.issues[0]!.message}.`);
  const normalized = posix.normalize(checked.data);
  if (normalized.startsWith('../') || normalized === '..' || posix.isAbsolute(normalized)) throw new AppError('InvalidInput', `"${path}" is outside the workspace.`);
  return normalized.replace(/^\.\//, '');
}

/** The absolute path of a workspace file; the existing part of it must not lead out of the folder through a link. */
export async function resolveInside(dir: string, path: string): Promise<string> {
  const absolute = resolve(dir, normalizeWorkspacePath(path));
  const root = await realpath(dir);
  let existing = dirname(absolute);
  for (;;) {
    try {
      existing = await realpath(existing);
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) break;
      existing = parent;
    }
  }
  if (existing !== root && !existing.startsWith(root + sep)) throw new AppError('InvalidInput', `"${path}" is outside the workspace.`);
  return absolute;
}

export function toWorkspacePath(dir: string, absolute: string): string {
  return relative(dir, absolute).split(sep).join('/');
}

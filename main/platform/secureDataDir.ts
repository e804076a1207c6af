import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Takes group and other permissions off everything under the data dir: folders become 0700,
 * files lose their group/other bits (0644 → 0600; an owner's execute bit is kept, for scripts in
 * the workspace). New files are created that way; this mends data dirs made before that, or by
 * other programs. Symbolic links are not followed: what they point at is not ours to change.
 */
export function secureDataDir(dir: string, limit = 20_000): void {
  let visited = 0;
  const visit = (path: string) => {
    if (++visited > limit) return;
    let info;
    try {
      info = lstatSync(path);
    } catch {
      return;
    }
    if (info.isSymbolicLink()) return;
    const mode = info.mode & 0o777;
    if (info.isDirectory()) {
      if (mode !== 0o700) tryChmod(path, 0o700);
      let names: string[];
      try {
        names = readdirSync(path);
      } catch {
        return;
      }
      for (const name of names) visit(join(path, name));
    } else if (info.isFile() && (mode & 0o077) !== 0) {
      tryChmod(path, mode & 0o700);
    }
  };
  visit(dir);
}

function tryChmod(path: string, mode: number) {
  try {
    chmodSync(path, mode);
  } catch {
    // Not ours (another owner) or a read-only mount: nothing better to do than leave it.
  }
}

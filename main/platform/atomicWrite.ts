import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, link, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * The one way Tooldeck writes a file: to a uniquely named temporary file beside it (two writes of
 * one file may overlap; the last rename wins), flushed to disk, then renamed over the old one, and
 * the folder flushed so the rename itself survives a crash — so a crash leaves the old file or the
 * new one, never half of either. Owner-only by default, in an owner-only folder.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const temp = await writeFlushedTemp(path, data, mode);
  await rename(temp, path);
  await syncFolder(dirname(path));
}

/**
 * writeFileAtomic for a file that must never be replaced once written, such as the key a sealed
 * file was encrypted with: publishes it only if there is none yet. Resolves false, leaving the file
 * there untouched, when another writer (this process or another) got there first.
 */
export async function writeFileAtomicIfAbsent(path: string, data: string | Uint8Array, mode = 0o600): Promise<boolean> {
  const temp = await writeFlushedTemp(path, data, mode);
  try {
    return await publishIfAbsent(temp, path);
  } finally {
    await rm(temp, { force: true });
  }
}

/** A uniquely named temporary file beside `path` (so writers never share one), flushed to disk. */
async function writeFlushedTemp(path: string, data: string | Uint8Array, mode: number): Promise<string> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  return temp;
}

/**
 * A hard link fails when the name exists, where a rename would replace it; so linking the flushed
 * temporary file is an atomic "create if absent". Filesystems without hard links (FAT, exFAT, some
 * network shares) get an exclusive copy instead, which is still never-replace, though a crash
 * during the copy could leave it short.
 */
async function publishIfAbsent(temp: string, path: string): Promise<boolean> {
  try {
    await link(temp, path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (!HARD_LINKS_UNSUPPORTED.has(code ?? '')) throw error;
    try {
      await copyFile(temp, path, constants.COPYFILE_EXCL);
    } catch (copyError) {
      if ((copyError as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw copyError;
    }
    const copied = await open(path, 'r+');
    await copied.sync().finally(() => copied.close());
  }
  await syncFolder(dirname(path));
  return true;
}

const HARD_LINKS_UNSUPPORTED = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Flushes a folder's entries (the rename or link just made) to disk, as far as the platform allows:
 * Windows cannot open a folder as a file (EISDIR) or flush one (EPERM), and some filesystems refuse
 * to flush a folder (EINVAL). There the file's own flush is all there is, so those are not errors.
 */
async function syncFolder(folder: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch (error) {
    if (!FOLDER_SYNC_UNSUPPORTED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle?.close();
  }
}

const FOLDER_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EPERM', 'EINVAL']);

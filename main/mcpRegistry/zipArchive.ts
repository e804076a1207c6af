import { crc32, inflateRawSync } from 'node:zlib';
import { AppError } from '../../shared/errors';

/**
 * A reader for the zip files mcpb bundles are, written for archives from strangers: every entry's
 * size is bounded and checked against what it inflates to, the total is bounded, paths are
 * relative and stay inside the target (no `..`, no absolute path, no drive letter, no backslash),
 * symbolic links, encrypted entries and zip64 are refused, and each entry's CRC-32 is checked.
 */

export interface ZipLimits {
  maxEntries: number;
  maxTotalBytes: number;
}

export interface ZipEntry {
  path: string;
  /** Unix permission bits when the archive was made on Unix (0 otherwise). */
  mode: number;
  directory: boolean;
  data: Buffer;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

const bad = (message: string) => new AppError('InvalidInput', `The bundle is not a usable zip archive: ${message}.`);

/** A relative path that stays inside the folder it is unpacked into, or undefined. */
export function safeEntryPath(name: string): string | undefined {
  if (!name || name.length > 1_024 || name.includes('\\') || name.includes('\0') || name.startsWith('/') || /^[A-Za-z]:/.test(name)) return undefined;
  const parts = name.split('/').filter((part, index, all) => part !== '' || index === all.length - 1);
  if (parts.some((part) => part === '..' || part === '.')) return undefined;
  return parts.join('/');
}

export function readZip(archive: Buffer, limits: ZipLimits): ZipEntry[] {
  // The end-of-central-directory record is in the last 22 + 65,535 bytes (its comment is at most that long).
  let eocd = -1;
  for (let i = archive.length - 22; i >= Math.max(0, archive.length - 22 - 65_535); i--) {
    if (archive.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw bad('no end of central directory');
  const count = archive.readUInt16LE(eocd + 10);
  const size = archive.readUInt32LE(eocd + 12);
  const offset = archive.readUInt32LE(eocd + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) throw bad('zip64 archives are not read');
  if (count > limits.maxEntries) throw bad(`it has ${count} entries, more than the ${limits.maxEntries} a bundle may have`);
  if (offset + size > eocd) throw bad('the central directory lies outside the file');

  const entries: ZipEntry[] = [];
  const seen = new Set<string>();
  let total = 0;
  let at = offset;
  for (let n = 0; n < count; n++) {
    if (at + 46 > eocd || archive.readUInt32LE(at) !== CENTRAL) throw bad('a central directory entry is damaged');
    const madeBy = archive.readUInt16LE(at + 4) >> 8;
    const flags = archive.readUInt16LE(at + 8);
    const method = archive.readUInt16LE(at + 10);
    const expectedCrc = archive.readUInt32LE(at + 16);
    const compressed = archive.readUInt32LE(at + 20);
    const uncompressed = archive.readUInt32LE(at + 24);
    const nameLength = archive.readUInt16LE(at + 28);
    const extraLength = archive.readUInt16LE(at + 30);
    const commentLength = archive.readUInt16LE(at + 32);
    const external = archive.readUInt32LE(at + 38);
    const localOffset = archive.readUInt32LE(at + 42);
    const rawName = archive.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    at += 46 + nameLength + extraLength + commentLength;

    const path = safeEntryPath(rawName);
    if (path === undefined) throw bad(`the entry "${rawName.slice(0, 200)}" would land outside the bundle's folder`);
    if (seen.has(path)) throw bad(`the entry ${path.slice(0, 200)} appears twice`);
    seen.add(path);
    if (flags & 0x1) throw bad(`the entry ${path.slice(0, 200)} is encrypted`);
    const unixMode = madeBy === 3 ? external >>> 16 : 0;
    if ((unixMode & 0o170000) === 0o120000) throw bad(`the entry ${path.slice(0, 200)} is a symbolic link`);
    const directory = rawName.endsWith('/');
    total += uncompressed;
    if (total > limits.maxTotalBytes) throw bad(`it unpacks to more than ${Math.round(limits.maxTotalBytes / 1024 / 1024)} MiB`);

    if (localOffset + 30 > offset || archive.readUInt32LE(localOffset) !== LOCAL) throw bad(`the entry ${path.slice(0, 200)} has no local header`);
    const dataStart = localOffset + 30 + archive.readUInt16LE(localOffset + 26) + archive.readUInt16LE(localOffset + 28);
    if (dataStart + compressed > offset) throw bad(`the entry ${path.slice(0, 200)} runs past its data`);
    const raw = archive.subarray(dataStart, dataStart + compressed);
    let data: Buffer;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) {
      try {
        // maxOutputLength: a deflate bomb stops at the size the entry declares.
        data = inflateRawSync(raw, { maxOutputLength: Math.max(1, uncompressed) });
      } catch (error) {
        throw bad(`the entry ${path.slice(0, 200)} does not inflate to its declared size (${(error as Error).message})`);
      }
    } else throw bad(`the entry ${path.slice(0, 200)} uses compression method ${method}`);
    if (data.length !== uncompressed) throw bad(`the entry ${path.slice(0, 200)} is not the size it declares`);
    if (crc32(data) !== expectedCrc) throw bad(`the entry ${path.slice(0, 200)} fails its CRC-32 check`);
    entries.push({ path, mode: unixMode & 0o777, directory, data });
  }
  return entries;
}

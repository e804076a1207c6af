import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import { formatByteSize, tooLargeMessage } from '../../shared/inputLimits';
import { decodeText, readBounded, readBoundedStream, readBoundedSync, readBoundedText, TOO_LARGE_STEP } from './readBounded';

const limit = { maxBytes: 1024, what: 'a test file', hint: 'make it smaller' };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tooldeck-bounded-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('readBounded', () => {
  it('reads a file up to and including the limit, and names the limit and the kind above it', async () => {
    writeFileSync(join(dir, 'exact'), Buffer.alloc(1024, 0x61));
    writeFileSync(join(dir, 'over'), Buffer.alloc(1025, 0x61));
    expect((await readBounded(join(dir, 'exact'), limit)).length).toBe(1024);
    expect(readBoundedSync(join(dir, 'exact'), limit).length).toBe(1024);
    const error = await rejection(readBounded(join(dir, 'over'), limit));
    expect(error).toMatchObject({ code: 'InvalidInput', step: TOO_LARGE_STEP });
    expect(error.message).toBe(`${join(dir, 'over')} is larger than the 1 KiB a test file may have (it is 1 KiB); make it smaller.`);
    expect(() => readBoundedSync(join(dir, 'over'), limit)).toThrow(/larger than the 1 KiB a test file may have/);
  });

  it('stops at the limit on a device that never ends (/dev/zero) and on /dev/urandom', { skip: process.platform === 'win32' }, async () => {
    for (const device of ['/dev/zero', '/dev/urandom']) {
      const error = await rejection(readBounded(device, { ...limit, maxBytes: 256 * 1024 }));
      expect(error.message).toBe(`${device} is larger than the 256 KiB a test file may have; make it smaller.`);
      expect(() => readBoundedSync(device, limit)).toThrow(/larger than the 1 KiB a test file may have/);
    }
  });

  it('reads a pipe (a FIFO with a writer) by counting, and cuts a long one off', { skip: process.platform === 'win32' }, async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    // A writer on the other end: `sh -c 'printf … > fifo'` for the short one, `yes` for the endless one.
    const short = spawn('sh', ['-c', `printf 'hello' > '${fifo}'`]);
    const shortExited = new Promise((resolve) => short.once('exit', resolve));
    expect((await readBounded(fifo, limit)).toString()).toBe('hello');
    await shortExited;
    const endless = spawn('sh', ['-c', `exec yes > '${fifo}'`], { stdio: 'ignore' });
    try {
      expect((await rejection(readBounded(fifo, limit))).step).toBe(TOO_LARGE_STEP);
    } finally {
      endless.kill();
    }
  });

  it('refuses a FIFO or a device at once when only regular files may be read (nothing waits for a writer)', { skip: process.platform === 'win32' }, async () => {
    const fifo = join(dir, 'x.yaml');
    execFileSync('mkfifo', [fifo]);
    expect((await rejection(readBounded(fifo, { ...limit, regularOnly: true }))).message).toBe(`${fifo} is not a regular file, so it is not read as a test file.`);
    expect((await rejection(readBounded('/dev/zero', { ...limit, regularOnly: true }))).message).toMatch(/is not a regular file/);
    expect(() => readBoundedSync(fifo, { ...limit, regularOnly: true })).toThrow(/is not a regular file/);
  });

  it('lets errors of opening pass through (a missing file is ENOENT, for the caller to word)', async () => {
    await expect(readBounded(join(dir, 'missing'), limit)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('decodeText', () => {
  it('drops a byte-order mark and refuses bytes that are not UTF-8 in one sentence', async () => {
    expect(decodeText(Buffer.from('\ufeffa: 1\n'), 'f.yaml', limit)).toBe('a: 1\n');
    expect(() => decodeText(Buffer.from([0x61, 0xff, 0xfe, 0x00]), 'f.yaml', limit)).toThrow('f.yaml is not UTF-8 text (a binary file?); a test file must be UTF-8.');
    writeFileSync(join(dir, 'text.yaml'), 'kind: Tool\n');
    expect(await readBoundedText(join(dir, 'text.yaml'), limit)).toBe('kind: Tool\n');
  });
});

describe('readBoundedStream', () => {
  it('counts a stream as it arrives and stops reading at the limit', async () => {
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled++;
        this.push(Buffer.alloc(100, 0x61));
      },
    });
    const error = await rejection(readBoundedStream(endless, 'http://example.test/x.json', limit));
    expect(error.message).toBe('http://example.test/x.json is larger than the 1 KiB a test file may have; make it smaller.');
    expect(pulled).toBeLessThan(30);
    expect((await readBoundedStream(Readable.from([Buffer.from('ab'), Buffer.from('c')]), 'x', limit)).toString()).toBe('abc');
    expect((await readBoundedStream(null, 'x', limit)).length).toBe(0);
  });
});

describe('the limit in words', () => {
  it('formats sizes as the README documents them', () => {
    expect(formatByteSize(1024 * 1024)).toBe('1 MiB');
    expect(formatByteSize(4 * 1024 * 1024)).toBe('4 MiB');
    expect(formatByteSize(1536)).toBe('1.5 KiB');
    expect(formatByteSize(12)).toBe('12 bytes');
    expect(tooLargeMessage('/dev/stdin', { maxBytes: 1024 * 1024, what: 'a resource file' })).toBe('/dev/stdin is larger than the 1 MiB a resource file may have.');
  });
});

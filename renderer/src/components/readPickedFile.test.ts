import { notifications } from '@mantine/notifications';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readPickedFile } from './readPickedFile';

const limit = { maxBytes: 8, what: 'a test file' };

afterEach(() => vi.restoreAllMocks());

describe('readPickedFile', () => {
  it('reads a file within the limit, and refuses a larger one by its size, naming the limit, without reading it', async () => {
    const shown = vi.spyOn(notifications, 'show');
    expect(await readPickedFile(new File(['servers'], 'servers.json'), limit)).toBe('servers');
    const big = new File(['x'.repeat(2048)], 'big.json');
    const read = vi.spyOn(big, 'text');
    expect(await readPickedFile(big, limit)).toBeUndefined();
    expect(read).not.toHaveBeenCalled();
    expect(shown).toHaveBeenCalledWith(expect.objectContaining({ color: 'red', message: 'big.json is larger than the 8 bytes a test file may have (it is 2 KiB).' }));
    expect(await readPickedFile(null, limit)).toBeUndefined();
  });
});

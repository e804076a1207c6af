import { describe, expect, it } from 'vitest';
import { LinearReadBuffer, RESULT_TOO_LARGE_CODE } from './LinearReadBuffer';

function drain(buffer: LinearReadBuffer) {
  const out: unknown[] = [];
  for (;;) {
    try {
      const message = buffer.readMessage();
      if (message === null) return out;
      out.push(message);
    } catch (error) {
      out.push({ thrown: (error as Error).message });
    }
  }
}

describe('LinearReadBuffer', () => {
  it('splits messages on newlines across any chunking, skipping lines that are not JSON', () => {
    const text = '{"jsonrpc":"2.0","id":1,"result":{}}\r\nnot json\n{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n';
    for (const size of [1, 3, 7, 64, text.length]) {
      const buffer = new LinearReadBuffer({ maxMessageBytes: 1024 });
      for (let at = 0; at < text.length; at += size) buffer.append(Buffer.from(text.slice(at, at + size)));
      expect(drain(buffer)).toEqual([
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      ]);
    }
  });

  it('answers an oversized reply with an error for its request, whether its id comes first or last', () => {
    const filler = 'x'.repeat(5000);
    for (const line of [`{"jsonrpc":"2.0","id":"a-7","result":{"text":"${filler}"}}`, `{"result":{"text":"${filler}"},"jsonrpc":"2.0","id":42}`]) {
      const receiving: number[] = [];
      const buffer = new LinearReadBuffer({ maxMessageBytes: 1000, onReceiving: () => receiving.push(1) });
      for (let at = 0; at < line.length; at += 512) buffer.append(Buffer.from(line.slice(at, at + 512)));
      buffer.append(Buffer.from('\n{"jsonrpc":"2.0","id":9,"result":{}}\n'));
      const [tooLarge, next] = drain(buffer) as Array<{ id: unknown; error?: { code: number; message: string } }>;
      expect(tooLarge).toMatchObject({ id: line.includes('"a-7"') ? 'a-7' : 42, error: { code: RESULT_TOO_LARGE_CODE } });
      expect(tooLarge!.error!.message).toMatch(/^The reply is 5 KiB, over the 1000 bytes a result may have/);
      expect(next).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
      expect(receiving.length).toBeGreaterThan(5);
    }
  });

  it('reports an oversized message whose request cannot be told, and carries on', () => {
    const buffer = new LinearReadBuffer({ maxMessageBytes: 100 });
    buffer.append(Buffer.from(`${'y'.repeat(500)}\n{"jsonrpc":"2.0","id":1,"result":{}}\n`));
    expect(drain(buffer)).toEqual([{ thrown: expect.stringMatching(/^A message of 500 bytes, over the 100 bytes limit, was skipped/) }, { jsonrpc: '2.0', id: 1, result: {} }]);
  });
});

import type { InvocationRecord } from '../../shared/invocation';
import type { StreamFormat } from './HistoryStore';
import { csvHeaderLine, csvLine } from './invocationCsv';

/** Lines gathered into chunks of about this many characters before each is handed on. */
const CHUNK_CHARS = 64 * 1024;

/** Records as JSON lines or CSV (header first), in chunks: memory stays flat however many rows match. */
export async function* formatRecords(records: AsyncIterable<InvocationRecord> | Iterable<InvocationRecord>, format: StreamFormat): AsyncGenerator<string> {
  let chunk = format === 'csv' ? csvHeaderLine() : '';
  for await (const rec of records) {
    chunk += format === 'csv' ? csvLine(rec) : `${JSON.stringify(rec)}\n`;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

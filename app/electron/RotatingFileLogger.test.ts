import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { RotatingFileLogger } from './RotatingFileLogger';

it('writes JSON lines at or above its level and rolls the file over at its size limit', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'tooldeck-log-')), 'logs', 'main.log');
  const mirrored: string[] = [];
  const logger = new RotatingFileLogger(file, { level: 'info', maxBytes: 400, mirror: (line) => mirrored.push(line) });
  logger.debug('not written');
  logger.info('started', { dataDir: '/data' });
  expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ level: 'info', message: 'started', dataDir: '/data' });
  for (let i = 0; i < 10; i++) logger.warn(`line ${i}`);
  expect(existsSync(`${file}.1`)).toBe(true);
  expect(readFileSync(file, 'utf8').length).toBeLessThanOrEqual(400);
  expect(readFileSync(file, 'utf8')).toContain('line 9');
  expect(mirrored).toHaveLength(11);
});

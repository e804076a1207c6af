import { describe, expect, it } from 'vitest';
import { describePgError } from './pgErrors';
import { displayHistoryUrl, isPostgresUrl, redactedArgv, redactHistoryText } from './historyUrl';

describe('history URL redaction', () => {
  const url = 'postgres://tooldeck:p%40ss%3Aw0rd@db.internal:5432/history?sslmode=require';

  it('shows a URL with its password masked and the rest as given', () => {
    expect(displayHistoryUrl(url)).toBe('postgres://tooldeck:***@db.internal:5432/history?sslmode=require');
    expect(displayHistoryUrl('postgresql://u@h/db')).toBe('postgresql://u@h/db');
    expect(displayHistoryUrl('postgres://u:pw@h/db?password=other&x=1')).toBe('postgres://u:***@h/db?password=***&x=1');
  });

  it('masks the password wherever it appears, encoded or decoded, and any PostgreSQL URL or password= in a message', () => {
    const message = `could not connect as tooldeck with p@ss:w0rd (p%40ss%3Aw0rd) via postgres://x:y@z/db; host=db password=hunter2 user=x`;
    const masked = redactHistoryText(message, url);
    expect(masked).toBe('could not connect as tooldeck with *** (***) via postgres://x:***@z/db; host=db password=*** user=x');
  });

  it("masks the password in a command line (what `ps` shows once it is the process title)", () => {
    expect(redactedArgv(['gateway', '--history-url', url, '--replica-name', 'gw-1'])).toEqual(['gateway', '--history-url', 'postgres://tooldeck:***@db.internal:5432/history?sslmode=require', '--replica-name', 'gw-1']);
    expect(redactedArgv(['serve', `--history-url=${url}`])).toEqual(['serve', '--history-url=postgres://tooldeck:***@db.internal:5432/history?sslmode=require']);
  });

  it('masks a password with an unencoded @ whole', () => {
    expect(displayHistoryUrl('postgres://u:p@ss@db:5432/h')).toBe('postgres://u:***@db:5432/h');
    expect(redactedArgv(['--history-url', 'postgres://u:p@ss@db:5432/h']).join(' ')).not.toContain('ss');
  });

  it('tells PostgreSQL URLs from others', () => {
    expect(isPostgresUrl(url)).toBe(true);
    expect(isPostgresUrl('POSTGRESQL://h/db')).toBe(true);
    expect(isPostgresUrl('mysql://h/db')).toBe(false);
    expect(isPostgresUrl('/var/lib/tooldeck.db')).toBe(false);
  });

  it('an error that quotes the password is described without it', () => {
    const error = Object.assign(new Error('password authentication failed for user "tooldeck" (tried p@ss:w0rd)'), { code: '28P01' });
    expect(describePgError(error, url)).toBe('it refused the login (password authentication failed for user "tooldeck" (tried ***))');
  });
});

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { InvalidArgumentError } from 'commander';
import { runCli } from '../program';
import { parseDuration, parseListen } from '../options';

async function cli(argv: string[]) {
  let stderr = '';
  const code = await runCli(argv, { stdout: () => {}, stderr: (t) => void (stderr += t) });
  return { code, stderr };
}

describe('tooldeck operator flags', () => {
  it('reads durations as client-go writes them', () => {
    expect(parseDuration('15s')).toBe(15_000);
    expect(parseDuration('1500ms')).toBe(1_500);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('10')).toBe(10_000);
    for (const bad of ['', 's', '-1s', '0s', '1h', '1.5.2s', '15 seconds']) expect(() => parseDuration(bad), bad).toThrow(InvalidArgumentError);
  });

  it('never accepts a duration that is not a positive number of ms, s or m', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          expect(parseDuration(text)).toBeGreaterThan(0);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidArgumentError);
        }
      }),
    );
  });

  it('reads HOST:PORT, IPv6 in brackets included', () => {
    expect(parseListen('127.0.0.1:8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(parseListen('0.0.0.0:0')).toEqual({ host: '0.0.0.0', port: 0 });
    expect(parseListen('[::1]:9090')).toEqual({ host: '::1', port: 9090 });
    // An empty host is loopback: every interface only when written out.
    expect(parseListen(':8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    for (const bad of ['8080', 'localhost', ':99999', 'a:b']) expect(() => parseListen(bad), bad).toThrow(InvalidArgumentError);
  });

  it('refuses timings under which a follower could take over from a live leader (exit 2, one sentence)', async () => {
    const result = await cli(['operator', '--lease-duration', '5s', '--renew-deadline', '10s', '--kubeconfig', '/nonexistent']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('The lease duration (5000 ms) must be greater than the renew deadline (10000 ms)');
  });

  it('is a usage error to name a kubeconfig that does not exist, or a bad flag', async () => {
    expect(await cli(['operator', '--kubeconfig', '/nonexistent/kubeconfig'])).toEqual({ code: 2, stderr: 'Kubeconfig not found: /nonexistent/kubeconfig\n' });
    const badListen = await cli(['operator', '--listen', 'everywhere']);
    expect(badListen.code).toBe(2);
    expect(badListen.stderr).toContain('Use HOST:PORT');
  });
});

describe('tooldeck operator --help', () => {
  async function help(argv: string[]) {
    let stdout = '';
    const code = await runCli([...argv, '--help'], { stdout: (t) => void (stdout += t), stderr: () => {} });
    // Help wraps to the terminal's width: compare with runs of white space as one space.
    return { code, stdout, flat: stdout.replace(/\s+/g, ' ') };
  }

  it('prints defaults the way they are typed: --listen as HOST:PORT, durations with their unit', async () => {
    const { code, flat } = await help(['operator']);
    expect(code).toBe(0);
    expect(flat).toMatch(/--listen <host:port> [^-]*\(default: 127\.0\.0\.1:8080\)/);
    expect(flat).toMatch(/--lease-duration <duration> [^-]*\(default: 15s\)/);
    expect(flat).toMatch(/--renew-deadline <duration> [^-]*\(default: 10s\)/);
    expect(flat).toMatch(/--retry-period <duration> [^-]*\(default: 2s\)/);
    expect(flat).not.toContain('"host"');
    expect(flat).not.toContain('(default: [])');
  });

  it('no command prints a default as a JSON object or [object Object]', async () => {
    const seen = new Set<string>();
    const queue: string[][] = [[]];
    while (queue.length > 0) {
      const path = queue.shift()!;
      const { stdout, flat } = await help(path);
      expect(flat, path.join(' ')).not.toMatch(/\(default: \{|\[object Object\]/);
      // Sub-commands are listed under "Commands:", one per line, name first.
      const commands = stdout.split(/\nCommands:\n/)[1] ?? '';
      for (const line of commands.split('\n')) {
        const name = /^ {2}([a-z][\w-]*)/.exec(line)?.[1];
        const next = [...path, name ?? ''];
        if (!name || name === 'help' || seen.has(next.join(' '))) continue;
        seen.add(next.join(' '));
        queue.push(next);
      }
    }
    expect(seen.has('operator')).toBe(true);
    expect(seen.has('grpc list')).toBe(true);
  });
});

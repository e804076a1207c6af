import { describe, expect, it } from 'vitest';
import type { McpServerSpec } from '../../shared/resources/mcpServer';
import { launchLineOf } from './mcpServerConfig';

const spec = (env: McpServerSpec['env']): McpServerSpec =>
  ({ transport: 'stdio', command: '${node}', args: ['server.js'], env, reconnect: { max_attempts: 3, backoff: '2s' } }) as McpServerSpec;

describe('the launch line a folder asks the user to confirm', () => {
  it('shows what will run: a value that changes only NODE_OPTIONS or LD_PRELOAD is a new line', () => {
    const quiet = launchLineOf('s', spec([{ name: 'NODE_OPTIONS', value: '--no-warnings' }]));
    const loading = launchLineOf('s', spec([{ name: 'NODE_OPTIONS', value: '--require ./evil.js' }]));
    expect(quiet).toBe("NODE_OPTIONS=--no-warnings '${node}' server.js  # flagged: NODE_OPTIONS can change which code runs");
    expect(loading).not.toBe(quiet);
    expect(launchLineOf('s', spec([{ name: 'LD_PRELOAD', value: './a.so' }]))).not.toBe(launchLineOf('s', spec([{ name: 'LD_PRELOAD', value: './b.so' }])));
  });

  it('never masks a loader or toolchain variable, whatever its name, and flags it', () => {
    const line = launchLineOf('s', spec([{ name: 'NPM_CONFIG__AUTH_TOKEN', value: 'shown-value' }, { name: 'PLAIN', value: 'x' }]));
    expect(line).toBe("NPM_CONFIG__AUTH_TOKEN=shown-value PLAIN=x '${node}' server.js  # flagged: NPM_CONFIG__AUTH_TOKEN can change which code runs");
    expect(launchLineOf('s', spec([{ name: 'PLAIN', value: 'x' }]))).toBe("PLAIN=x '${node}' server.js");
  });

  it('hides credential-named values and secret references behind ***', () => {
    const line = launchLineOf('s', spec([{ name: 'GITHUB_TOKEN', value: 'ghp_not_shown' }, { name: 'API', secretRef: 'api-key' } as never]));
    expect(line).not.toContain('ghp_not_shown');
    expect(line).toContain('GITHUB_TOKEN=***');
  });
});

import { parse as parseShell } from 'shell-quote';
import { Option, type Command } from 'commander';
import type { McpServerConfigInput } from '../../shared/mcp';
import { CliExit, ExitCode } from './CliContext';
import { collectKeyValue, parseHttpUrl } from './options';

export interface TargetOptions {
  stdio?: string;
  url?: string;
  sse?: boolean;
  header?: string[];
  env?: string[];
}

/** `(<name> | --stdio "<command> [args…]" | --url URL [--header K=V]…)`: a saved server or a one-off. */
export function addTargetOptions(command: Command): Command {
  return command
    .addOption(new Option('--stdio <command>', 'a one-off stdio server: "<command> [args…]"').conflicts('url'))
    .option('--url <url>', 'a one-off Streamable HTTP server', parseHttpUrl)
    .option('--sse', 'with --url: the server speaks legacy HTTP+SSE')
    .option('--header <K=V>', 'HTTP header for --url (repeatable)', collectKeyValue)
    .option('--env <K=V>', 'environment variable for --stdio (repeatable)', collectKeyValue);
}

export function splitCommandLine(line: string): string[] {
  const parts = parseShell(line);
  if (parts.some((p) => typeof p !== 'string')) throw new CliExit(ExitCode.Usage, `--stdio takes a plain command line (no pipes, redirects or globs): ${line}`);
  if (parts.length === 0) throw new CliExit(ExitCode.Usage, '--stdio needs a command');
  return parts as string[];
}

export function keyValues(pairs: string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new CliExit(ExitCode.Usage, `${flag} expects K=V, got "${pair}"`);
    out[pair.slice(0, at).trim()] = pair.slice(at + 1);
  }
  return out;
}

/** The config of a one-off target, or undefined when a saved server name is used instead. */
export function adHocConfig(name: string, options: TargetOptions): McpServerConfigInput | undefined {
  if (options.stdio) {
    const [command, ...args] = splitCommandLine(options.stdio);
    return { name, transport: 'stdio', command: command!, args, env: keyValues(options.env, '--env') };
  }
  if (options.url) return { name, transport: options.sse ? 'sse' : 'http', url: options.url, headers: keyValues(options.header, '--header') };
  return undefined;
}

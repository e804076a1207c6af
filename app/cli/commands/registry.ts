import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { CONFIRM_LAUNCH_STEP, isAppError } from '../../../shared/errors';
import type { Freshness, InstallPreview, InstallRequest, RegistryEntry, RegistryInput, RegistryKeyValueInput } from '../../../shared/mcpRegistry';
import { isRefusedVariable } from '../../../shared/refusedEnvironment';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { contractFor } from '../contract';
import { collectKeyValue, integerIn } from '../options';
import { keyValues } from '../targetOptions';
import { jsonForTerminal, safeForTerminal } from '../terminalText';

const PACKAGE_TYPES = ['npm', 'pypi', 'oci', 'nuget', 'mcpb'] as const;

/** A one-sentence refusal of the registry domain (a missing value, an unpinnable package) as exit 2; unreachable as 3; unknown as 1. */
function exitFor(error: unknown): never {
  if (isAppError(error)) {
    if (error.step === 'plan-changed') throw new CliExit(ExitCode.Failed, error.message);
    if (error.code === 'InvalidInput' || error.code === 'InvalidArguments') throw new CliExit(ExitCode.Usage, error.message);
    if (error.code === 'ConnectionFailed') throw new CliExit(ExitCode.CannotConnect, error.message);
    if (error.code === 'NotFound' || error.code === 'AlreadyExists') throw new CliExit(ExitCode.Failed, error.message);
  }
  throw error;
}

function offlineNote(ctx: CliContext, freshness: Freshness) {
  if (freshness.offline) ctx.io.stderr(`offline: ${safeForTerminal(freshness.registry, 300)} could not be reached (${safeForTerminal(freshness.reason ?? '', 200)}); this is the cached answer from ${new Date(freshness.fetchedAt).toISOString()}\n`);
}

function statusMark(entry: RegistryEntry) {
  const status = entry.meta?.status;
  return status === 'deprecated' ? ' [deprecated]' : status === 'deleted' ? ' [deleted]' : '';
}

function inputLine(label: string, input: RegistryInput, refused = false) {
  const marks = [refused ? 'changes which code runs: refused unless --allow-env' : '', input.isRequired ? 'required' : '', input.isSecret ? 'secret' : '', input.default !== undefined ? `default ${input.default}` : '', input.choices?.length ? `one of ${input.choices.join('|')}` : ''].filter(Boolean);
  return `    ${safeForTerminal(label, 200)}${marks.length ? ` (${safeForTerminal(marks.join(', '), 300)})` : ''}${input.description ? ` — ${safeForTerminal(input.description, 200)}` : ''}\n`;
}

function showEntry(ctx: CliContext, entry: RegistryEntry) {
  const s = entry.server;
  const out = (line: string) => ctx.io.stdout(line);
  out(`${safeForTerminal(s.name, 200)} ${safeForTerminal(s.version, 100)}${statusMark(entry)}${s.title ? ` — ${safeForTerminal(s.title, 100)}` : ''}\n`);
  if (entry.meta?.status === 'deprecated' || entry.meta?.status === 'deleted') ctx.io.stderr(`warning: this version is ${entry.meta.status}${entry.meta.statusMessage ? `: ${safeForTerminal(entry.meta.statusMessage, 300)}` : ''}\n`);
  if (s.description) out(`  ${safeForTerminal(s.description, 500)}\n`);
  if (s.repository?.url) out(`  repository: ${safeForTerminal(s.repository.url, 300)}\n`);
  if (s.websiteUrl) out(`  website: ${safeForTerminal(s.websiteUrl, 300)}\n`);
  if (s.icons?.length) out(`  icons: ${s.icons.length}\n`);
  if (entry.meta?.publishedAt) out(`  published: ${safeForTerminal(entry.meta.publishedAt, 40)}\n`);
  (s.packages ?? []).forEach((pkg, i) => {
    out(`  package ${i + 1}: ${safeForTerminal(pkg.registryType, 32)} ${safeForTerminal(pkg.identifier, 300)}${pkg.version ? ` ${safeForTerminal(pkg.version, 100)}` : ''} (${safeForTerminal(pkg.transport.type, 32)})${pkg.fileSha256 ? ` sha256 ${pkg.fileSha256}` : ''}\n`);
    for (const arg of [...(pkg.runtimeArguments ?? []), ...(pkg.packageArguments ?? [])]) out(inputLine(arg.type === 'named' ? `arg ${arg.name ?? ''}` : `arg ${arg.value ?? `<${arg.valueHint ?? 'value'}>`}`, arg));
    for (const env of pkg.environmentVariables ?? []) out(inputLine(`env ${env.name}`, env, isRefusedVariable(env.name)));
  });
  (s.remotes ?? []).forEach((remote, i) => {
    out(`  remote ${i + 1}: ${safeForTerminal(remote.type, 32)} ${safeForTerminal(remote.url ?? '', 500)}\n`);
    for (const [name, variable] of Object.entries(remote.variables ?? {})) out(inputLine(`var ${name}`, variable));
    for (const header of remote.headers ?? ([] as RegistryKeyValueInput[])) out(inputLine(`header ${header.name}`, header));
  });
}

/** Asks on a terminal (y/N); with no terminal the answer is no. */
async function confirmOnTerminal(ctx: CliContext, question: string): Promise<boolean> {
  const input = ctx.io.input ?? process.stdin;
  if (!input.isTTY) return false;
  ctx.io.stderr(question);
  const rl = createInterface({ input, terminal: false });
  try {
    return /^\s*y(es)?\s*$/i.test(await rl.question(''));
  } finally {
    rl.close();
  }
}

interface InstallFlags {
  registry?: string;
  version?: string;
  package?: (typeof PACKAGE_TYPES)[number];
  remote?: number | true;
  name?: string;
  env?: string[];
  arg?: string[];
  var?: string[];
  header?: string[];
  endpointOrigin?: string;
  allowEnv?: string[];
  file?: string;
  yes?: boolean;
  json?: boolean;
}

export function registerRegistry(program: Command, ctx: CliContext) {
  const registry = program.command('registry').description('MCP registries: find servers, install them pinned with their secrets sealed, validate a server.json');

  registry
    .command('search [query]')
    .description('Search a registry (the first enabled one unless --registry); latest versions only')
    .option('--registry <url>', 'the registry to ask')
    .option('--limit <n>', 'entries per page (1-100)', integerIn(1, 100), 30)
    .option('--cursor <cursor>', 'the next page, as a previous search printed it')
    .option('--json', 'print the page as JSON')
    .action(async (query: string | undefined, options: { registry?: string; limit: number; cursor?: string; json?: boolean }) => {
      const contract = await contractFor(await ctx.getCore());
      const page = await contract.mcpRegistry.search({ registry: options.registry, search: query, cursor: options.cursor, limit: options.limit }).catch(exitFor);
      offlineNote(ctx, page);
      if (options.json) return ctx.io.stdout(`${jsonForTerminal(page)}\n`);
      if (page.servers.length === 0) ctx.io.stdout(`No servers${query ? ` matching "${safeForTerminal(query, 100)}"` : ''} in ${safeForTerminal(page.registry, 300)}\n`);
      const width = Math.min(60, Math.max(...page.servers.map((entry) => entry.server.name.length), 4));
      for (const entry of page.servers) {
        ctx.io.stdout(`${safeForTerminal(entry.server.name, 200).padEnd(width)}  ${safeForTerminal(entry.server.version, 40).padEnd(12)}${statusMark(entry)} ${safeForTerminal(entry.server.description.split('\n')[0]!, 120)}\n`);
      }
      if (page.skipped) ctx.io.stderr(`${page.skipped} entr${page.skipped === 1 ? 'y' : 'ies'} of this page broke the schema or a size bound and ${page.skipped === 1 ? 'was' : 'were'} left out\n`);
      if (page.nextCursor) ctx.io.stderr(`more: tooldeck registry search${query ? ` ${JSON.stringify(query)}` : ''} --cursor ${JSON.stringify(page.nextCursor)}\n`);
    });

  registry
    .command('show <name>')
    .description("A server's detail: description, packages and remotes with their inputs, status, versions")
    .option('--registry <url>', 'the registry to ask')
    .option('--version <version>', 'a published version (default: latest)')
    .option('--json', 'print the entry and its versions as JSON')
    .action(async (name: string, options: { registry?: string; version?: string; json?: boolean }) => {
      const contract = await contractFor(await ctx.getCore());
      const shown = await contract.mcpRegistry.show({ name, registry: options.registry, version: options.version }).catch(exitFor);
      offlineNote(ctx, shown.freshness);
      if (options.json) return ctx.io.stdout(`${jsonForTerminal({ ...shown.entry, versions: shown.versions.versions.map((entry) => ({ version: entry.server.version, ...(entry.meta ?? {}) })) })}\n`);
      showEntry(ctx, shown.entry);
      ctx.io.stdout(`  versions: ${shown.versions.versions.map((entry) => `${safeForTerminal(entry.server.version, 60)}${statusMark(entry)}`).join(', ')}\n`);
    });

  registry
    .command('install [name]')
    .description("Install a server from a registry (or a server.json at hand, --file) as a saved server: the version pinned, the registry's values shown as they are, every value you type for a secret sealed in the secret store, the exact command line confirmed first")
    .option('--file <server.json>', 'install from this server.json instead of asking a registry (when none can be reached)')
    .option('--registry <url>', 'the registry to ask')
    .option('--version <version>', 'a published version (default: latest)')
    .option('--package <type>', `install this package type (${PACKAGE_TYPES.join('|')})`)
    .option('--remote [n]', 'install a remote (the first, or remote n) instead of a package', integerIn(1, 16))
    .option('--name <name>', 'the saved server\'s name (default: the last part of the registry name)')
    .option('--env <K=V>', 'environment variable (repeatable; sealed in the secret store)', collectKeyValue)
    .option('--arg <value>', 'a positional argument, or --flag=value for a named one (repeatable, in order)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--var <K=V>', "a remote's URL variable, or an argument's variable (repeatable)", collectKeyValue)
    .option('--header <K=V>', "a remote's header (repeatable; sealed in the secret store)", collectKeyValue)
    .option('--endpoint-origin <url>', "connect to this origin instead of the remote's (a mirror or a local proxy); headers go there")
    .option('--allow-env <name>', 'let the registry set this loader or toolchain variable (NODE_OPTIONS, npm_config_*, PATH…), shown in the line to confirm (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--yes', 'install without asking (the command line is still printed)')
    .option('--json', 'print what was installed as JSON')
    .action(async (givenName: string | undefined, options: InstallFlags) => {
      let document: string | undefined;
      if (options.file) {
        const { readBoundedText } = await import('../../../main/platform/readBounded');
        document = await readBoundedText(options.file, { maxBytes: 1024 * 1024, what: 'a server.json' }).catch((error: unknown) => {
          throw new CliExit(ExitCode.Usage, isAppError(error) ? error.message : `Cannot read ${options.file}: ${(error as Error).message}`);
        });
      }
      const name = givenName ?? (document !== undefined ? nameOfDocument(document) : undefined);
      if (!name) throw new CliExit(ExitCode.Usage, 'Name the server to install, or give --file server.json');
      if (options.package && !(PACKAGE_TYPES as readonly string[]).includes(options.package)) throw new CliExit(ExitCode.Usage, `--package must be one of ${PACKAGE_TYPES.join(', ')}`);
      if (options.package && options.remote !== undefined) throw new CliExit(ExitCode.Usage, 'Give --package or --remote, not both');
      const positional: string[] = [];
      const named: Record<string, string> = {};
      for (const value of options.arg ?? []) {
        const flag = /^(-{1,2}[A-Za-z0-9][A-Za-z0-9_.-]*)=(.*)$/s.exec(value);
        if (flag) named[flag[1]!] = flag[2]!;
        else positional.push(value);
      }
      const request: InstallRequest = {
        name,
        ...(document !== undefined ? { document } : {}),
        registry: options.registry,
        version: options.version,
        choice: {
          serverName: options.name,
          packageType: options.package,
          remoteIndex: options.remote === undefined ? undefined : options.remote === true ? 0 : options.remote - 1,
          env: keyValues(options.env, '--env'),
          args: positional,
          namedArgs: named,
          variables: keyValues(options.var, '--var'),
          headers: keyValues(options.header, '--header'),
          endpointOrigin: options.endpointOrigin,
          allowEnv: options.allowEnv ?? [],
        },
      };
      const contract = await contractFor(await ctx.getCore());
      const preview: InstallPreview = await contract.mcpRegistry.preview(request).catch(exitFor);
      offlineNote(ctx, preview.freshness);
      for (const warning of preview.warnings) ctx.io.stderr(`warning: ${safeForTerminal(warning, 500)}\n`);
      const what = preview.bundle ? `will\n  ${safeForTerminal(preview.launch)}` : preview.transport === 'stdio' ? `runs\n  ${safeForTerminal(preview.launch)}` : `connects to\n  ${safeForTerminal(preview.launch)}`;
      ctx.io.stderr(`${safeForTerminal(preview.serverName)} (${safeForTerminal(preview.entry.server.name, 200)} ${safeForTerminal(preview.entry.server.version, 100)}) ${what}\n`);
      for (const header of preview.headers ?? []) ctx.io.stderr(`  with the header ${safeForTerminal(header, 500)}\n`);
      for (const name of preview.flagged ?? []) ctx.io.stderr(`  flagged: ${safeForTerminal(name, 200)} changes which code runs, and you allowed it (--allow-env)\n`);
      const card = preview.card;
      if (card) {
        const declared = card.tools ? `declares ${card.tools.length} tool${card.tools.length === 1 ? '' : 's'}: ${card.tools.map((tool) => safeForTerminal(tool.name, 80)).join(', ')}` : 'lists no tools';
        ctx.io.stderr(`Its server card (SEP-2127, draft): ${safeForTerminal(card.title ?? card.name ?? '(no name)', 200)}${card.version ? ` ${safeForTerminal(card.version, 60)}` : ''}, ${declared}\n`);
      }
      if (!options.yes && !(await confirmOnTerminal(ctx, preview.bundle ? 'Download and verify it (y/N)? ' : 'Install it (y/N)? '))) {
        throw new CliExit(ExitCode.Usage, 'Not installed: confirm on a terminal, or run again with --yes to install this exact command line.');
      }
      // The preview's hash goes with the install: if the registry now answers otherwise, it stops.
      const bound = { ...request, previewHash: preview.planHash };
      let installing = contract.mcpRegistry.install({ ...bound, confirmedLaunchLine: preview.transport === 'stdio' && !preview.bundle ? preview.launch : undefined });
      if (preview.bundle) {
        // A bundle's command line is known once it is downloaded and verified: shown, then confirmed as any other.
        const line = await installing.then(
          () => undefined,
          (error: unknown) => (isAppError(error) && error.step === CONFIRM_LAUNCH_STEP && Array.isArray(error.details) ? String(error.details[0]) : exitFor(error)),
        );
        if (line === undefined) throw new CliExit(ExitCode.Failed, 'The bundle was installed without its command line being confirmed.');
        ctx.io.stderr(`Its manifest runs\n  ${safeForTerminal(line)}\n`);
        if (!options.yes && !(await confirmOnTerminal(ctx, 'Install it (y/N)? '))) throw new CliExit(ExitCode.Usage, 'Not installed: confirm on a terminal, or run again with --yes to install this exact command line.');
        installing = contract.mcpRegistry.install({ ...bound, confirmedLaunchLine: line });
      }
      const installed = await installing.catch(exitFor);
      const snapshot = (await contract.mcp.inventory()).find((server) => server.name === installed.serverName);
      const tools = (await ctx.getCore()).mcp.connection(installed.serverName)?.tools ?? [];
      if (options.json) return ctx.io.stdout(`${jsonForTerminal({ name: installed.serverName, from: { registry: installed.freshness.registry, name: installed.entry.server.name, version: installed.entry.server.version }, launch: installed.launch, tools: tools.map((tool) => tool.name) })}\n`);
      const state = (await ctx.getCore()).mcp.connection(installed.serverName)?.state;
      if (preview.card && state?.status === 'ready') {
        const { diffCardTools } = await import('../../../main/mcpRegistry/serverCard');
        const { undeclared, missing } = diffCardTools(preview.card, tools.map((tool) => tool.name));
        const names = (list: string[]) => list.map((name) => safeForTerminal(name, 80)).join(', ');
        if (undeclared.length) ctx.io.stderr(`warning: tools/list has ${undeclared.length} tool${undeclared.length === 1 ? '' : 's'} its server card does not declare: ${names(undeclared)}\n`);
        if (missing.length) ctx.io.stderr(`warning: its server card declares ${names(missing)}, which tools/list does not have\n`);
      }
      ctx.io.stdout(`Installed ${safeForTerminal(installed.serverName)}${snapshot ? '' : ' (not listed?)'}${state?.status === 'ready' ? ` — connected, ${tools.length} tools: ${tools.map((tool) => safeForTerminal(tool.name, 80)).join(', ')}` : ` — not connected${state?.message ? `: ${safeForTerminal(state.message, 300)}` : ''}`}\n`);
    });

  registry
    .command('validate <file>')
    .description("Check a publisher's server.json against the schema and the registry's rules (exit 1 naming each problem by its path)")
    .option('--json', 'print the problems as JSON')
    .action(async (file: string, options: { json?: boolean }) => {
      const { readBoundedText } = await import('../../../main/platform/readBounded');
      const { validateServerJson } = await import('../../../main/mcpRegistry/serverJsonValidation');
      let text: string;
      try {
        text = await readBoundedText(file, { maxBytes: 1024 * 1024, what: 'a server.json' });
      } catch (error) {
        if (isAppError(error)) throw new CliExit(ExitCode.Usage, error.message);
        throw new CliExit(ExitCode.Usage, `Cannot read ${file}: ${(error as Error).message}`);
      }
      let document: unknown;
      try {
        document = JSON.parse(text);
      } catch (error) {
        throw new CliExit(ExitCode.Usage, `${file} is not JSON: ${(error as Error).message}`);
      }
      const issues = validateServerJson(document);
      if (options.json) ctx.io.stdout(`${jsonForTerminal({ valid: issues.length === 0, issues })}\n`);
      else if (issues.length === 0) ctx.io.stdout(`${file}: valid\n`);
      else for (const issue of issues) ctx.io.stdout(`${safeForTerminal(issue.path || '(document)', 300)}: ${safeForTerminal(issue.message, 500)}\n`);
      if (issues.length) throw new CliExit(ExitCode.Failed, options.json ? '' : `${file}: ${issues.length} problem${issues.length === 1 ? '' : 's'}`);
    });

  registry
    .command('list')
    .description('The registries searched: the official one (can be turned off) and those added')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const sources = await (await contractFor(await ctx.getCore())).mcpRegistry.sources();
      if (options.json) return ctx.io.stdout(`${jsonForTerminal(sources)}\n`);
      for (const source of sources) ctx.io.stdout(`${source.enabled ? 'on ' : 'off'}  ${safeForTerminal(source.url, 300)}${source.official ? '  (official)' : ''}\n`);
    });

  for (const [command, description] of [
    ['add', 'Add a registry (searched after the ones before it)'],
    ['remove', 'Remove an added registry (the official one is turned off instead)'],
    ['enable', 'Turn a registry on'],
    ['disable', 'Turn a registry off'],
  ] as const) {
    registry
      .command(`${command} <url>`)
      .description(description)
      .action(async (url: string) => {
        const contract = await contractFor(await ctx.getCore());
        const run = command === 'add' ? contract.mcpRegistry.addSource({ url }) : command === 'remove' ? contract.mcpRegistry.removeSource({ url }) : contract.mcpRegistry.setSourceEnabled({ url, enabled: command === 'enable' });
        const sources = await run.catch(exitFor);
        for (const source of sources) ctx.io.stdout(`${source.enabled ? 'on ' : 'off'}  ${safeForTerminal(source.url, 300)}${source.official ? '  (official)' : ''}\n`);
      });
  }

  registry
    .command('updates')
    .description('Saved servers installed from a registry that now publishes a newer version')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const updates = await (await contractFor(await ctx.getCore())).mcpRegistry.updates();
      if (options.json) return ctx.io.stdout(`${jsonForTerminal(updates)}\n`);
      if (updates.length === 0) return ctx.io.stdout('Every server installed from a registry is at its latest version (or its registry could not be reached).\n');
      for (const update of updates) ctx.io.stdout(`${safeForTerminal(update.server)}  ${safeForTerminal(update.origin.version, 60)} → ${safeForTerminal(update.latest, 60)}  (${safeForTerminal(update.origin.name, 200)})\n`);
    });
}

/** The name a server.json gives itself, for the install's messages (the document is checked by the planner). */
function nameOfDocument(text: string): string | undefined {
  try {
    const name = (JSON.parse(text) as { name?: unknown }).name;
    return typeof name === 'string' && name ? name.slice(0, 200) : 'server.json';
  } catch {
    return 'server.json';
  }
}

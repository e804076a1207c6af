import { Option, type Command } from 'commander';
import { isAppError } from '../../../shared/errors';
import { INPUT_LIMITS } from '../../../shared/inputLimits';
import { readBoundedText } from '../../../main/platform/readBounded';
import type { ProviderFormat } from '../../../main/mediation/ModelProviders';
import { CliExit, ExitCode, type CliContext } from '../CliContext';
import { jsonForTerminal, terminalName } from '../terminalText';

/** Reads all of standard input (an API key piped in, never on the command line). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

/** `tooldeck providers`: the model providers mediation forwards to; API keys go to the secret store. */
export function registerProviders(program: Command, ctx: CliContext) {
  const providers = program.command('providers').description('Model providers for mediation (runners call <provider>/<model> on the gateway’s port)');
  const store = async () => {
    const { ModelProviders } = await import('../../../main/mediation/ModelProviders');
    const { CommandLineSecretStore } = await import('../CommandLineSecretStore');
    return new ModelProviders(ctx.dataDir, new CommandLineSecretStore(ctx.dataDir));
  };
  providers
    .command('add <name>')
    .description('Add or replace a provider')
    .addOption(new Option('--format <format>', 'its wire format').choices(['openai', 'anthropic']).makeOptionMandatory())
    .requiredOption('--base-url <url>', "as its official SDK takes it (OpenAI's includes /v1; Anthropic's does not)")
    .option('--api-key-env <VAR>', 'read the API key from this environment variable')
    .option('--api-key-stdin', 'read the API key from standard input')
    .action(async (name: string, options: { format: ProviderFormat; baseUrl: string; apiKeyEnv?: string; apiKeyStdin?: boolean }) => {
      if (options.apiKeyEnv && options.apiKeyStdin) throw new CliExit(ExitCode.Usage, '--api-key-env and --api-key-stdin exclude each other');
      const apiKey = options.apiKeyStdin ? await readStdin() : options.apiKeyEnv ? process.env[options.apiKeyEnv] : undefined;
      if (options.apiKeyEnv && !apiKey) throw new CliExit(ExitCode.Usage, `--api-key-env: environment variable ${options.apiKeyEnv} is empty or not set`);
      try {
        const saved = await (await store()).add({ name, format: options.format, baseUrl: options.baseUrl, apiKey });
        ctx.io.stdout(`Saved provider ${terminalName(saved.name)} (${saved.format}, ${terminalName(saved.baseUrl)}${saved.hasKey ? ', key in the secret store' : ', no key'})\n`);
      } catch (error) {
        if (isAppError(error) && error.code === 'InvalidInput') throw new CliExit(ExitCode.Usage, error.message);
        throw error;
      }
    });
  providers
    .command('list')
    .description('Providers (never their keys)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const list = await (await store()).list();
      if (options.json) return void ctx.io.stdout(`${jsonForTerminal(list)}\n`);
      if (list.length === 0) return void ctx.io.stdout('No model providers. Add one with: tooldeck providers add NAME --format openai --base-url URL --api-key-env VAR\n');
      for (const provider of list) ctx.io.stdout(`${terminalName(provider.name).padEnd(16)} ${provider.format.padEnd(10)} ${terminalName(provider.baseUrl)}${provider.hasKey ? '' : '  (no key)'}\n`);
    });
  providers
    .command('import <file>')
    .description("Import Clawdapus cllama's providers.json (keys go to the secret store; the file is left as it is)")
    .action(async (file: string) => {
      let text: string;
      try {
        text = await readBoundedText(file, INPUT_LIMITS.providersFile);
      } catch (error) {
        if (isAppError(error)) throw new CliExit(ExitCode.Usage, error.message);
        throw new CliExit(ExitCode.Usage, `Cannot read ${terminalName(file)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      try {
        const { saved, skipped } = await (await store()).importCllama(text);
        for (const provider of saved) ctx.io.stdout(`Imported provider ${terminalName(provider.name)} (${provider.format}, ${terminalName(provider.baseUrl)}${provider.hasKey ? ', key in the secret store' : ', no key'})\n`);
        for (const skip of skipped) ctx.io.stderr(`Skipped ${terminalName(skip.name)}: ${terminalName(skip.reason)}\n`);
        if (saved.length === 0) throw new CliExit(ExitCode.Failed, 'No provider was imported.');
      } catch (error) {
        if (isAppError(error) && error.code === 'InvalidInput') throw new CliExit(ExitCode.Usage, error.message);
        throw error;
      }
    });
  providers
    .command('remove <name>')
    .description('Remove a provider and its key')
    .action(async (name: string) => {
      try {
        await (await store()).remove(name);
      } catch (error) {
        if (isAppError(error) && error.code === 'NotFound') throw new CliExit(ExitCode.Failed, error.message);
        throw error;
      }
      ctx.io.stdout(`Removed provider ${terminalName(name)}\n`);
    });
}

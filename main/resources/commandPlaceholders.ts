import { createRequire } from 'node:module';
import { AppError } from '../../shared/errors';

const PLACEHOLDER = /\$\{([^}]*)\}/g;

/**
 * Placeholders an McpServer's `command` and `args` may hold, so a workspace runs on any machine:
 * `${node}` is a Node.js binary and `${module:<specifier>}` the file a package path resolves to
 * (e.g. `${module:@modelcontextprotocol/server-everything/dist/index.js}`).
 */
export function unknownPlaceholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1]!).filter((name) => name !== 'node' && !/^module:\S+$/.test(name));
}

export interface PlaceholderContext {
  /** The Node.js binary for `${node}`. */
  node: string;
  /** Resolves a package path for `${module:…}`; throws when it is not installed. */
  resolveModule: (specifier: string) => string;
}

/**
 * Under plain Node (the CLI and browser mode) `${node}` is this very binary and `${module:…}` an
 * installed package. The desktop app passes its own context (CoreDeps.placeholders): there
 * process.execPath is the app, which cannot run scripts (its runAsNode fuse is off), and packages
 * sit inside the asar, where no other process can read them.
 */
export function defaultPlaceholderContext(): PlaceholderContext {
  const require = createRequire(import.meta.url);
  return {
    node: process.execPath,
    resolveModule: (specifier) => require.resolve(specifier),
  };
}

export function expandPlaceholders(text: string, context: PlaceholderContext): string {
  return text.replace(PLACEHOLDER, (_whole, name: string) => {
    if (name === 'node') return context.node;
    if (name.startsWith('module:')) {
      const specifier = name.slice('module:'.length);
      try {
        return context.resolveModule(specifier);
      } catch (error) {
        throw new AppError('NotFound', `\${module:${specifier}} cannot be resolved: the package is not installed here (${(error as Error).message.split('\n')[0]})`);
      }
    }
    throw new AppError('InvalidInput', `Unknown placeholder \${${name}}: use \${node} or \${module:<package path>}`);
  });
}

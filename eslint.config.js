// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const electronOnlyInApp = { name: 'electron', message: 'Only app/electron may import electron; main/, shared/ and renderer/ must run without it.' };
/** Test doubles and fixtures live in `testing/` folders (left out of every build); product code imports none of them. */
const noTestDoubles = { regex: '(^|/)testing(/|$)', message: 'Product code imports no test doubles: testing/ folders are for tests.' };
const testCode = ['**/*.test.ts', '**/*.test.tsx', '**/testing/**'];

const rendererPatterns = [
  { regex: '(^|/)main/rpc(/|$)', allowTypeImports: true, message: 'renderer/ may only `import type` from main/rpc.' },
  { regex: '(^|/)main/(?!rpc(/|$))', message: 'renderer/ talks to main/ through the tRPC contract only.' },
  { regex: '(^|/)(app|e2e)/', message: 'renderer/ imports shared/ and types from main/rpc only.' },
  { regex: '^node:', message: 'renderer/ runs in a browser sandbox: no Node built-ins.' },
  { regex: '^(ajv|ajv/.*|@rjsf/validator-ajv8)$', message: 'Ajv compiles schemas with eval, which the CSP forbids; use @cfworker/json-schema (components/jsonSchema.ts).' },
];

const mainPatterns = [
  { regex: '(^|/)(app|renderer|e2e)(/|$)', message: 'main/ imports shared/ only.' },
  { regex: '^(react|react-dom|@mantine/.*)$', message: 'main/ is the backend: no UI packages.' },
  noTestDoubles,
];

/** The domain folders of main/ (docs/architecture.md): everything but core.ts, rpc/ and testing/. */
const mainDomainFolders = ['mcp', 'a2a', 'grpc', 'http', 'registry', 'lock', 'collections', 'resources', 'kube', 'store', 'metrics', 'apps', 'settings', 'reconcile', 'platform', 'system', 'approvals', 'agents', 'gateway', 'mediation', 'evals', 'bus', 'mcpRegistry'];
/**
 * The agents' doors (docs/architecture.md): each translates its protocol to an InvocationRequest;
 * what they share (identity, grants, approvals, traffic) lives in main/agents/, so none imports another.
 */
const agentDoors = ['gateway', 'mediation', 'bus'];
const doorPattern = (door) => ({
  regex: `^\\.\\./(${agentDoors.filter((other) => other !== door).join('|')})(/|$)`,
  message: 'A door never imports another door: what doors share lives in main/agents/ (identity, grants, the approval hook, traffic) or below.',
});
const domainPatterns = [
  { regex: '^(\\.{1,2}/)+core(\\.ts)?$', message: 'A domain folder of main/ never imports main/core.ts: take the services you use as explicit dependencies.' },
  { regex: '^(\\.{1,2}/)+rpc(/|$)', message: 'A domain folder of main/ never imports main/rpc/: the tRPC routers call the domain, not the other way.' },
];

/**
 * The layer rules (README "Layout"; e2e/architecture/layering.test.ts checks that lint enforces them):
 *   shared/   imports nothing of ours and no package but zod
 *   main/     imports shared/ only (plain Node, no electron); a domain folder of main/ never imports core.ts or rpc/
 *   renderer/ imports shared/ and `import type` from main/rpc
 *   only app/electron imports electron
 */
const layerRules = [
  {
    files: ['shared/**/*.ts'],
    ignores: testCode,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [electronOnlyInApp],
          patterns: [
            { regex: '^(?!zod$|\\.{1,2}/)', message: 'shared/ is the contract: it imports nothing but zod.' },
            { regex: '^\\.\\./\\.\\./|^\\.\\./(main|app|renderer|e2e)(/|$)', message: 'shared/ imports nothing of ours outside shared/.' },
            noTestDoubles,
          ],
        },
      ],
    },
  },
  {
    files: ['main/**/*.ts'],
    // Tests may start the peers and rigs in e2e/ (real servers to talk to).
    ignores: testCode,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [electronOnlyInApp], patterns: mainPatterns }] },
  },
  {
    // Inside main/: core.ts composes the domain folders and rpc/ serves them, so neither may be
    // imported back by a domain folder (a service names the services it needs, not Pick<Core>).
    files: mainDomainFolders.map((folder) => `main/${folder}/**/*.ts`),
    ignores: testCode,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [electronOnlyInApp], patterns: [...mainPatterns, ...domainPatterns] }] },
  },
  ...agentDoors.map((door) => ({
    files: [`main/${door}/**/*.ts`],
    ignores: testCode,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [electronOnlyInApp], patterns: [...mainPatterns, ...domainPatterns, doorPattern(door)] }] },
  })),
  {
    files: ['renderer/**/*.{ts,tsx}'],
    ignores: testCode,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [electronOnlyInApp], patterns: [...rendererPatterns, noTestDoubles] }] },
  },
  {
    files: testCode.map((pattern) => `renderer/${pattern}`),
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [electronOnlyInApp], patterns: rendererPatterns }] },
  },
  {
    files: ['app/web/**/*.ts', 'app/cli/**/*.ts', 'app/common/**/*.ts'],
    ignores: testCode,
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [electronOnlyInApp], patterns: [noTestDoubles] }],
    },
  },
  {
    files: ['app/electron/**/*.ts'],
    ignores: testCode,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [noTestDoubles] }] },
  },
  {
    files: ['app/web/**/*.ts', 'app/cli/**/*.ts', 'app/common/**/*.ts', 'main/**/*.ts'].flatMap((pattern) => testCode.map((test) => `${pattern.replace('/**/*.ts', '')}/${test}`)),
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [electronOnlyInApp] }],
    },
  },
];

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'release/**', '.tsbuild/**', 'node_modules/**', 'coverage/**', 'test-results/**', 'playwright-report/**', 'e2e/kube-testbed/**/*.go', 'main/grpc/gen/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2024, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-empty-function': 'off',
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  { files: ['renderer/**/*.{ts,tsx}'], languageOptions: { globals: { ...globals.browser } } },
  // The rules of hooks and complete effect dependencies (the React Compiler's stricter rules are not adopted).
  { files: ['renderer/**/*.{ts,tsx}'], plugins: { 'react-hooks': reactHooks }, rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' } },
  ...layerRules,
);

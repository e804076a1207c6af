/**
 * Lowercase word tokens: splits on anything that is not a letter or digit and between camelCase
 * humps, so `create_issue`, `createIssue` and "create issue" all read as `create issue`.
 */
export function tokenize(text: string): string[] {
  return text
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token.length > 0);
}

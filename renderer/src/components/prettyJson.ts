/** JSON text indented for reading; anything that is not JSON comes back as it was. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

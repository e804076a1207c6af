// The editor core's entry ships no declarations of its own; it is the API `monaco-editor` declares.
declare module 'monaco-editor/esm/vs/editor/edcore.main.js' {
  const api: unknown;
  export = api;
}

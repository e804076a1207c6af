// A real MCP App server (the official SDK with the ext-apps server helpers) whose two apps differ
// only in where they ask to live: `ui://domain/view.html` names a dedicated origin with
// `_meta.ui.domain` (the form the ext-apps docs show for a host's CORS allowlists), and
// `ui://plain/view.html` does not. Both declare a CSP so the host's confinement can be checked.
import { registerAppResource, registerAppTool, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/** The domain a server would compute for a host, e.g. a hash of its URL (see registerAppResource's docs). */
const APP_DOMAIN = process.env.APP_DOMAIN ?? 'a904794854a047f6.apps.example.com';

const server = new McpServer({ name: 'app-domain-server', version: '1.0.0' });

const html = (title) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1></body></html>`;

for (const [name, domain] of [
  ['domain', APP_DOMAIN],
  ['plain', undefined],
]) {
  const uri = `ui://${name}/view.html`;
  registerAppResource(server, `${name} view`, uri, { description: `The ${name} app` }, async () => ({
    contents: [
      {
        uri,
        mimeType: RESOURCE_MIME_TYPE,
        text: html(`${name} app`),
        _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] }, ...(domain ? { domain } : {}) } },
      },
    ],
  }));
  registerAppTool(server, `show-${name}`, { description: `Shows the ${name} app`, _meta: { ui: { resourceUri: uri } } }, async () => ({
    content: [{ type: 'text', text: `${name} shown` }],
  }));
}

await server.connect(new StdioServerTransport());

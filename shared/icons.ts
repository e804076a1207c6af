import { z } from 'zod';

/** An icon a server gives for itself, a tool, a resource or a prompt (MCP 2025-11-25, SEP-973). */
export const McpIcon = z
  .object({
    src: z.string(),
    mimeType: z.string().optional(),
    sizes: z.array(z.string()).optional(),
    theme: z.enum(['light', 'dark']).optional(),
  })
  .loose();
export type McpIcon = z.infer<typeof McpIcon>;

/** Image types shown from a `data:` URL; anything else (text/html, image/svg with a charset trick…) is not. */
const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp|avif|svg\+xml|x-icon|vnd\.microsoft\.icon);base64,[A-Za-z0-9+/=\s]+$/;

/**
 * How an icon may be shown: a `data:image/…;base64` URL as is; an `https:` URL only through the
 * console's guarded icon fetch (public addresses, size and type checked); every other scheme
 * (`javascript:`, `http:`, `file:`, `data:text/html`…) never.
 */
export function iconSource(src: string): 'data' | 'https' | undefined {
  if (src.length > 256 * 1024) return undefined;
  if (DATA_IMAGE.test(src)) return 'data';
  try {
    const url = new URL(src);
    return url.protocol === 'https:' && !url.username && !url.password ? 'https' : undefined;
  } catch {
    return undefined;
  }
}

/** The icon to show at `px` pixels in `theme`: a usable one for the theme, the closest size at or above, else the largest. */
export function chooseIcon(icons: readonly McpIcon[] | undefined, theme: 'light' | 'dark', px = 24): McpIcon | undefined {
  const usable = (icons ?? []).filter((icon) => iconSource(icon.src));
  if (!usable.length) return undefined;
  const themed = usable.filter((icon) => !icon.theme || icon.theme === theme);
  const pool = themed.length ? themed : usable;
  const sizeOf = (icon: McpIcon) => Math.max(0, ...(icon.sizes ?? []).map((s) => (s === 'any' ? Number.POSITIVE_INFINITY : Number.parseInt(s, 10) || 0)));
  const big = pool.filter((icon) => sizeOf(icon) >= px).sort((a, b) => sizeOf(a) - sizeOf(b));
  return big[0] ?? [...pool].sort((a, b) => sizeOf(b) - sizeOf(a))[0];
}

import { useComputedColorScheme } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { chooseIcon, iconSource, type McpIcon } from '../../../shared/icons';
import { useTRPC } from '../rpc/client';

/**
 * The icon a server gives for itself, a tool, a resource or a prompt (SEP-973). A `data:image`
 * icon shows as is; an `https:` one is fetched by the console (public addresses only, size and
 * type checked) and shown as a `data:` URL, so the page itself never loads a remote image; any
 * other scheme shows nothing.
 */
export function McpIconImage({ icons, size = 20, label }: { icons: readonly McpIcon[] | undefined; size?: number; label: string }) {
  const theme = useComputedColorScheme('light');
  const icon = chooseIcon(icons, theme, size * 2);
  const kind = icon ? iconSource(icon.src) : undefined;
  const trpc = useTRPC();
  const fetched = useQuery({ ...trpc.mcp.icon.queryOptions({ src: icon?.src ?? '' }), enabled: kind === 'https', staleTime: Number.POSITIVE_INFINITY, retry: false });
  const src = kind === 'data' ? icon!.src : kind === 'https' ? (fetched.data ?? undefined) : undefined;
  if (!src) return null;
  return <img src={src} alt={label} width={size} height={size} style={{ objectFit: 'contain', flexShrink: 0, borderRadius: 4 }} />;
}

import { z } from 'zod';

export const HttpServiceName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'Use letters, digits, "-" and "_"');

/** A Clawdapus `claw.describe` v2 descriptor whose HTTP tools join the registry as `http:<service>.<tool>`. */
export const HttpServiceInput = z.object({
  service: HttpServiceName,
  /** A file path or an http(s) URL of the descriptor. */
  location: z.string().min(1),
  /** Where the tools are called; defaults to the descriptor URL's origin. */
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** Kept in the secret store (`http:<service>/token`), used when the descriptor names no env var. */
  token: z.string().optional(),
});
export type HttpServiceInput = z.infer<typeof HttpServiceInput>;

export const HttpServiceView = z.object({
  service: z.string(),
  location: z.string(),
  baseUrl: z.string(),
  tools: z.array(z.string()),
  /** The environment variable whose value calls send as the token, fixed when the service was added. */
  authEnv: z.string().optional(),
  error: z.string().optional(),
  loadedAt: z.number().optional(),
});
export type HttpServiceView = z.infer<typeof HttpServiceView>;

// The token endpoint's answer (RFC 6749 §5.1), and the mapper of providers that answer by the book.
import { z } from "zod";

export const tokenResponse = z.object({
  access_token: z.string().min(1).max(8192),
  token_type: z.string().refine((t) => t.toLowerCase() === "bearer", "only bearer tokens are supported"),
  expires_in: z.coerce.number().int().positive().max(10 * 365 * 86_400).optional(),
  refresh_token: z.string().min(1).max(8192).optional(),
  scope: z.string().max(8192).optional(),
  id_token: z.string().max(16_384).optional(),
});
export type TokenResponse = z.infer<typeof tokenResponse>;

/** RFC 6749 §5.1 as it is written: the token mapper of providers that answer by the book. */
export function standardTokens(raw: unknown): TokenResponse | null {
  const parsed = tokenResponse.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

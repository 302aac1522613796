// Who is calling: always derived from the session or a bearer token, never from a request body.
import type { Role } from "@/db/schema";

export type UserContext = {
  kind: "user";
  tenantId: string;
  userId: string;
  role: Role;
  via: "session" | "api_key";
  requestId: string;
};

export type AuthContext = UserContext;

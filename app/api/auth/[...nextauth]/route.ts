// /api/auth/* — Auth.js sign-in, callback and sign-out endpoints
import { authRouteHandlers } from "@/lib/auth/next-auth";

export const { GET, POST } = authRouteHandlers;

// For tests and scripts: run a whole connection flow with a given user agent — whatever plays the person
// at the provider and returns the callback URL it was redirected to. No provider is assumed here.
import type { Db } from "@/db/client";
import type { Who } from "./accounts";
import { completeConnection, startConnection, type Completed, type StartConnectionBody } from "./flows";

export type UserAgent = (authorizationUrl: string) => Promise<string>;

export async function connectWith(db: Db, who: Who, body: Partial<StartConnectionBody>, agent: UserAgent): Promise<Completed & { callbackUrl: string; authorizationUrl: string }> {
  const { authorization_url } = await startConnection(db, who, { intent: "connect", claims: [], ...body });
  const callbackUrl = await agent(authorization_url);
  const done = await completeConnection(db, who, Object.fromEntries(new URL(callbackUrl).searchParams));
  return { ...done, callbackUrl, authorizationUrl: authorization_url };
}

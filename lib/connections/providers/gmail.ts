// The Gmail API family: Realmgate's mail claims and the Google scopes that satisfy them. Any provider
// speaking the Gmail REST API (Google itself, or a compatible server) uses these scope names.
import type { ApiFamily } from "./types";

const READONLY = "https://www.googleapis.com/auth/gmail.readonly";
const SEND = "https://www.googleapis.com/auth/gmail.send";
const COMPOSE = "https://www.googleapis.com/auth/gmail.compose";
const MODIFY = "https://www.googleapis.com/auth/gmail.modify";
const FULL = "https://mail.google.com/";

export const gmailScopes = { READONLY, SEND, COMPOSE, MODIFY, FULL } as const;

export const gmailApi: ApiFamily = {
  id: "gmail",
  label: "Mail",
  claims: [
    { name: "gmail:read", label: "Read your mail and labels", request: READONLY, satisfiedBy: [READONLY, MODIFY, FULL] },
    { name: "gmail:send", label: "Send mail as you", request: SEND, satisfiedBy: [SEND, COMPOSE, MODIFY, FULL] },
    { name: "gmail:modify", label: "Archive and label your mail", request: MODIFY, satisfiedBy: [MODIFY, FULL] },
  ],
};

// The Slack realm as the registry lists it: its manifest and adapter, and how it presents a call for consent.
// It has no demo step of its own: the demo's workspace lives at the local Slack-compatible server.
import type { RealmModule } from "@/lib/realms/contract";
import { adapter } from "./adapter";
import { manifest } from "./manifest";
import { presentRequest } from "./presenter";

export const slack: RealmModule = { realm: { manifest, adapter, presentRequest } };

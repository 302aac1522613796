// The docs realm as the registry lists it: its manifest and adapter, how it presents a call for consent, and its demo data.
import type { RealmModule } from "@/lib/realms/contract";
import { adapter } from "./adapter";
import { seedDemo } from "./demo";
import { manifest } from "./manifest";
import { presentRequest } from "./presenter";

export const docs: RealmModule = { realm: { manifest, adapter, presentRequest }, demo: seedDemo };

// The board realm as the registry lists it: its manifest and adapter, and its demo data.
import type { RealmModule } from "@/lib/realms/contract";
import { adapter } from "./adapter";
import { seedDemo } from "./demo";
import { manifest } from "./manifest";

export const board: RealmModule = { realm: { manifest, adapter }, demo: seedDemo };

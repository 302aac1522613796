// Whether an operation became riskier: a change of the meaning a person approved (an imported service's re-import or
// curation, a remote provider's new manifest), so lib/authz/suspensions asks the person again.
import type { Risk } from "./contract";

const RANK: Record<Risk, number> = { read: 0, write: 1, destructive: 2 };

export const riskRises = (from: Risk, to: Risk): boolean => RANK[to] > RANK[from];
